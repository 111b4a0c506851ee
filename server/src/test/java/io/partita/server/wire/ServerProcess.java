package io.partita.server.wire;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
        return start(dataDir, List.of(), flags);
    }

    /** As above, with options {@code jvm} for the server's JVM. */
    static ServerProcess start(Path dataDir, List<String> jvm, String... flags) throws Exception {
        Path archive = Archive.FILE;
        List<String> options = new ArrayList<>(jvm);
        if (archive != null) {
            options.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off"));
        }
        List<String> command = command(dataDir, options);
        command.addAll(List.of(flags));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new ServerProcess(p, portOf(p));
    }

    private static List<String> command(Path dataDir, List<String> jvm) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                // The client compiler alone: a crash test restarts the server many times, and starts 25% faster so.
                "-XX:TieredStopAtLevel=1"));
        command.addAll(jvm);
        command.addAll(List.of(
                "-Dpartita.log.segmentBytes=65536",
                "-Dpartita.log.firstSegmentBytes=8192",
                // Ratis at INFO (elections, leader changes) unless PARTITA_RATIS_LOG_LEVEL asks for another level.
                "-Dpartita.log.ratis=" + Objects.requireNonNullElse(System.getenv("PARTITA_RATIS_LOG_LEVEL"), "INFO"),
                "-cp",
                CLASS_PATH,
                "io.partita.server.cli.Main",
                "--port",
                "0",
                "--host",
                "127.0.0.1",
                "--data-dir",
                dataDir.toString()));
        return command;
    }

    /**
     * The server's fat jar when the build has made it from the classes under test (Maven's package phase comes before
     * the integration tests), else the test's own class path. Class-data sharing archives classes from jars only.
     */
    private static final String CLASS_PATH = classPath();

    private static String classPath() {
        Path jar = Path.of("target", "partita.jar");
        Path main = Path.of("target", "classes", "io", "partita", "server", "cli", "Main.class");
        try {
            if (java.nio.file.Files.isRegularFile(jar)
                    && java.nio.file.Files.getLastModifiedTime(jar)
                                    .compareTo(java.nio.file.Files.getLastModifiedTime(main))
                            >= 0) {
                return jar.toAbsolutePath().toString();
            }
        } catch (IOException e) {
            // no classes of our own to compare with: the test's class path, then
        }
        return System.getProperty("java.class.path");
    }

    /**
     * A class-data-sharing archive of the classes a server loads as it starts and answers a request, made once per test
     * JVM by a server that then stops cleanly (the JVM writes it as it exits): every server after it maps those classes
     * from the archive instead of loading them, and starts in about 0.9 s instead of 1.3 s on the 2-core machine. The
     * crash tests start one a hundred times and more. Null when it could not be made: servers then start without it.
     */
    private static final class Archive {
        static final Path FILE = make();

        private static Path make() {
            // Each test JVM its own (failsafe runs two at once), deleted as it exits.
            Path jsa = Path.of(
                            "target",
                            "server-process-" + ProcessHandle.current().pid() + ".jsa")
                    .toAbsolutePath();
            if (!CLASS_PATH.endsWith(".jar")) {
                return null;
            }
            try {
                java.nio.file.Files.deleteIfExists(jsa);
                jsa.toFile().deleteOnExit();
                Path dir = java.nio.file.Files.createTempDirectory("partita-cds");
                Process p = new ProcessBuilder(command(dir, List.of("-XX:ArchiveClassesAtExit=" + jsa)))
                        .redirectErrorStream(true)
                        .start();
                try {
                    int port = portOf(p);
                    java.net.http.HttpClient.newHttpClient()
                            .send(
                                    java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                                            .header("X-Amz-Target", "DynamoDB_20120810.ListTables")
                                            .header("Content-Type", "application/x-amz-json-1.0")
                                            .header(
                                                    "Authorization",
                                                    "AWS4-HMAC-SHA256 Credential=cds/20260101/us-east-1/dynamodb/"
                                                            + "aws4_request, SignedHeaders=host, Signature=00")
                                            .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}"))
                                            .build(),
                                    java.net.http.HttpResponse.BodyHandlers.discarding());
                } finally {
                    p.destroy(); // SIGTERM: a clean stop, at whose end the JVM writes the archive
                    if (!p.waitFor(60, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                }
                return java.nio.file.Files.isRegularFile(jsa) && java.nio.file.Files.size(jsa) > 0 ? jsa : null;
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                return null;
            }
        }
    }

    private static int portOf(Process p) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        java.util.Deque<String> before = new java.util.ArrayDeque<>();
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            before.addLast(line);
            if (before.size() > 40) {
                before.removeFirst();
            }
            Matcher m = PORT.matcher(line);
            if (m.find()) {
                // The rest of the server's output goes to target/server-logs/<port>.log, to read after a failure.
                java.nio.file.Path logs = java.nio.file.Path.of("target", "server-logs");
                java.nio.file.Files.createDirectories(logs);
                java.io.PrintWriter out = new java.io.PrintWriter(
                        java.nio.file.Files.newBufferedWriter(
                                logs.resolve(m.group(1) + ".log"),
                                StandardCharsets.UTF_8,
                                // A node restarted on its port adds to its log.
                                java.nio.file.StandardOpenOption.CREATE,
                                java.nio.file.StandardOpenOption.APPEND),
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
        throw new IllegalStateException(
                "server exited before announcing its port; the end of its output:\n" + String.join("\n", before));
    }

    int port() {
        return port;
    }

    RawApi api() {
        return new RawApi(URI.create("http://127.0.0.1:" + port));
    }

    /** Where the server's output after its port announcement goes (see {@link #portOf}). */
    Path log() {
        return Path.of("target", "server-logs", port + ".log");
    }

    /**
     * What the server is doing, for a failure's message: the stacks of its Raft threads ({@link #telling}), from a
     * thread dump it prints on SIGQUIT, and the last {@code lines} lines it logged before.
     */
    String diagnosis(int lines) throws IOException, InterruptedException {
        List<String> before = java.nio.file.Files.readAllLines(log(), StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder();
        before.stream()
                .skip(Math.max(0, before.size() - lines))
                .forEach(l -> out.append("\n    ").append(l.length() > 400 ? l.substring(0, 400) + "..." : l));
        if (!process.isAlive()) {
            return out.append("\n    (exited ")
                    .append(process.exitValue())
                    .append(": no thread dump)")
                    .toString();
        }
        signal("QUIT");
        List<String> after = before;
        boolean whole = false;
        for (int tries = 0; tries < 40 && !whole; tries++) {
            Thread.sleep(50);
            after = java.nio.file.Files.readAllLines(log(), StandardCharsets.UTF_8);
            whole = after.stream().skip(before.size()).anyMatch(l -> l.startsWith("JNI global refs"));
        }
        if (!whole) {
            // A process stopped with SIGSTOP prints its dump only once it is continued.
            out.append("\n    (no whole thread dump within 2 s: stopped?)");
        }
        // A thread dump is blocks separated by blank lines, each starting with the thread's quoted name.
        List<String> block = new ArrayList<>();
        for (String l : after.subList(before.size(), after.size())) {
            if (l.isBlank()) {
                if (!block.isEmpty() && telling(block)) {
                    block.stream().limit(10).forEach(b -> out.append("\n    | ").append(b));
                }
                block.clear();
            } else {
                block.add(l);
            }
        }
        return out.toString();
    }

    private static final Pattern RAFT_THREAD = Pattern.compile(
            "^\"[^\"]*(LogAppender|FollowerState|LeaderElection|SegmentedRaftLogWorker|StateMachineUpdater)");

    /**
     * Whether a thread's block of a dump tells what Raft is doing: a log appender's, follower timer's, election's, log
     * writer's or applier's, one blocked on a monitor, or one inside a Raft request's handling (an append or a vote a
     * peer sent).
     */
    private static boolean telling(List<String> block) {
        return RAFT_THREAD.matcher(block.get(0)).find()
                || block.stream()
                        .anyMatch(l -> l.contains("State: BLOCKED") || l.contains("GrpcServerProtocolService"));
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
