package io.partita.server.wire;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Partita server in a process of its own on a data directory, for crash tests: {@link #kill} is SIGKILL, with no
 * shutdown hook and no flush. Its log segments are 64 KB, so that checkpoints (a flush and a cut of the log) happen
 * all through a test's load.
 */
final class ServerProcess implements AutoCloseable {
    private static final Pattern PORT = Pattern.compile("listening on port (\\d+)");

    private final Process process;
    private final int port;

    private ServerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static ServerProcess start(Path dataDir, String... flags) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                // The client compiler alone: a crash test restarts the server many times, and starts 25% faster so.
                "-XX:TieredStopAtLevel=1",
                "-Dpartita.log.segmentBytes=65536",
                "-cp",
                System.getProperty("java.class.path"),
                "io.partita.server.cli.Main",
                "--port",
                "0",
                "--host",
                "127.0.0.1",
                "--data-dir",
                dataDir.toString()));
        command.addAll(List.of(flags));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new ServerProcess(p, portOf(p));
    }

    private static int portOf(Process p) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            Matcher m = PORT.matcher(line);
            if (m.find()) {
                // The rest of the server's output goes to target/server-logs/<port>.log, to read after a failure.
                java.nio.file.Path logs = java.nio.file.Path.of("target", "server-logs");
                java.nio.file.Files.createDirectories(logs);
                java.io.PrintWriter out = new java.io.PrintWriter(
                        java.nio.file.Files.newBufferedWriter(
                                logs.resolve(m.group(1) + ".log"), StandardCharsets.UTF_8),
                        true);
                Thread drain = new Thread(() -> {
                    r.lines().forEach(out::println);
                    out.close();
                });
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new IllegalStateException("server exited before announcing its port");
    }

    int port() {
        return port;
    }

    RawApi api() {
        return new RawApi(URI.create("http://127.0.0.1:" + port));
    }

    /** Sends the process {@code signal} (e.g. STOP, CONT): a pause as long as a stalled machine's, and its end. */
    void signal(String signal) throws IOException, InterruptedException {
        int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .inheritIO()
                .start()
                .waitFor();
        if (exit != 0) {
            throw new IOException("kill -" + signal + " " + process.pid() + " exited " + exit);
        }
    }

    /** SIGKILL, and wait (up to 10 s) for the process to be gone. */
    void kill() {
        process.destroyForcibly();
        boolean interrupted = false;
        while (process.isAlive()) {
            try {
                process.waitFor(10, TimeUnit.SECONDS);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGTERM: the stop a supervisor asks for. Returns the exit code, or -1 if still running after {@code seconds}. */
    int terminate(long seconds) throws InterruptedException {
        process.destroy();
        return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
    }

    @Override
    public void close() {
        kill();
    }
}
