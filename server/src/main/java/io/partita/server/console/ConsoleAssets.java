package io.partita.server.console;

import io.partita.server.admin.AdminRoutes.Answer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The web console's files, served from the jar at {@code /console}: one page ({@code /console/}, views chosen by the
 * URL's fragment, so every view has a URL to share), its scripts and style sheet, and the chart library from its
 * WebJar ({@code /console/vendor/}). Nothing is built at run time and nothing is fetched from elsewhere; the page
 * talks to the server through the DynamoDB API ({@code POST /}) and the admin views ({@code /admin/...}).
 *
 * <p>The files hold no data, so strict mode serves them unsigned; everything they fetch is signed by the page.
 *
 * <p>Only plain file names are served ({@code [a-z0-9-]+.(html|js|css|svg)}), so no request reaches outside the
 * console's folder.
 */
public final class ConsoleAssets {
    private static final String FOLDER = "/io/partita/server/console/";
    private static final Pattern NAME = Pattern.compile("[a-z0-9-]+\\.(html|js|css|svg)");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "svg", "image/svg+xml");
    private static final Map<String, String> VENDOR = Map.of(
            "uPlot.iife.min.js", "dist/uPlot.iife.min.js",
            "uPlot.min.css", "dist/uPlot.min.css",
            "uPlot-LICENSE", "LICENSE");

    private final String region;
    private final boolean strict;
    private final String uplotFolder;
    private final Map<String, byte[]> cache = new ConcurrentHashMap<>();

    public ConsoleAssets(String region) {
        this(region, false);
    }

    /** @param strict the server verifies signatures: the page then asks for keys and signs its requests */
    public ConsoleAssets(String region, boolean strict) {
        this.region = region;
        this.strict = strict;
        this.uplotFolder = "/META-INF/resources/webjars/uplot/" + webjarVersion("org.webjars.npm", "uplot") + "/";
    }

    /** True for the paths the console answers. */
    public static boolean handles(String path) {
        return path.equals("/console") || path.startsWith("/console/");
    }

    /** The file at {@code path} (query string removed), or 404. */
    public Answer get(String path) {
        String name = path.equals("/console") ? "" : path.substring("/console/".length());
        if (name.isEmpty()) {
            name = "index.html";
        }
        if (name.equals("config.json")) {
            String json = "{\"region\":\"" + region + "\"" + (strict ? ",\"strict\":true" : "") + "}";
            return new Answer(200, "application/json", json.getBytes(StandardCharsets.UTF_8));
        }
        if (name.startsWith("vendor/")) {
            String file = VENDOR.get(name.substring("vendor/".length()));
            if (file == null) {
                return notFound(path);
            }
            String type =
                    file.endsWith(".js") ? TYPES.get("js") : file.endsWith(".css") ? TYPES.get("css") : "text/plain";
            return found(uplotFolder + file, type, path);
        }
        if (!NAME.matcher(name).matches()) {
            return notFound(path);
        }
        return found(FOLDER + name, TYPES.get(name.substring(name.lastIndexOf('.') + 1)), path);
    }

    private Answer found(String resource, String type, String path) {
        byte[] body = cache.get(resource);
        if (body == null) {
            body = read(resource);
            if (body.length == 0) {
                return notFound(path); // not kept: a stranger's guesses must not fill the cache
            }
            cache.put(resource, body);
        }
        return new Answer(200, type, body);
    }

    /** The resource's bytes; empty when the jar has none of that name. */
    private static byte[] read(String resource) {
        try (InputStream in = ConsoleAssets.class.getResourceAsStream(resource)) {
            return in == null ? new byte[0] : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Answer notFound(String path) {
        return new Answer(
                404, "text/plain; charset=utf-8", ("Not found: " + path + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** The version of a WebJar on the class path, from the pom.properties Maven puts in every jar. */
    static String webjarVersion(String group, String artifact) {
        String resource = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = ConsoleAssets.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the WebJar " + group + ":" + artifact + " is not on the class path");
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
