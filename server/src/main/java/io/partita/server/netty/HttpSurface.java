package io.partita.server.netty;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;

/**
 * DynamoDB's HTTP behaviour around the API: compressed request bodies, compressed answers, CORS for browsers, and the
 * health line's host.
 */
public final class HttpSurface {
    /**
     * On every answer to a request with an {@code Origin}: any origin may call, and may read the headers the AWS SDK
     * for JavaScript reads in a browser (DynamoDB serves browsers directly; credentials are in the signature, not in
     * cookies, so {@code *} is safe).
     */
    static final String CORS =
            "access-control-allow-origin: *\r\naccess-control-expose-headers: x-amzn-RequestId,x-amzn-ErrorType,"
                    + "x-amz-request-id,x-amz-id-2,x-amzn-ErrorMessage,Date\r\n";
    /** How long a browser may keep a preflight's answer: two days. */
    static final int PREFLIGHT_MAX_AGE_SECONDS = 172_800;

    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.-]{1,253}|\\[[0-9A-Fa-f:.]{2,45}\\]");
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9!#$%&'*+.^_`|~-]+");
    private static final Pattern HEADER_LIST = Pattern.compile("[A-Za-z0-9!#$%&'*+.^_`|~, -]{0,1024}");

    private HttpSurface() {}

    /**
     * Adds the CORS headers of an answer to a request with an {@code Origin} ({@link #CORS}) to {@code out}: for an
     * answer a cluster's node makes itself of DynamoDB's API.
     */
    public static void addCors(HttpHeaders out) {
        for (String line : CORS.split("\r\n")) {
            int colon = line.indexOf(':');
            out.set(line.substring(0, colon), line.substring(colon + 1).strip());
        }
    }

    /** The extras of an answer to {@code h}: CORS headers when it has an {@code Origin}, gzip when it accepts it. */
    static HttpAnswer.Extras extras(HttpHeaders h) {
        boolean cors = h.contains(HttpHeaderNames.ORIGIN);
        boolean gzip = acceptsGzip(h.get(HttpHeaderNames.ACCEPT_ENCODING));
        return cors || gzip ? new HttpAnswer.Extras(cors ? CORS : null, gzip) : HttpAnswer.Extras.NONE;
    }

    /**
     * The answer to a CORS preflight ({@code OPTIONS}): the method and headers the browser asked for are allowed, from
     * any origin. Values that are not plain tokens are not echoed.
     */
    static HttpAnswer.Extras preflight(HttpHeaders h) {
        StringBuilder b = new StringBuilder(CORS);
        String method = h.get(HttpHeaderNames.ACCESS_CONTROL_REQUEST_METHOD);
        if (method != null && TOKEN.matcher(method.strip()).matches()) {
            b.append("access-control-allow-methods: ").append(method.strip()).append("\r\n");
        }
        String headers = h.get(HttpHeaderNames.ACCESS_CONTROL_REQUEST_HEADERS);
        if (headers != null && HEADER_LIST.matcher(headers.strip()).matches()) {
            b.append("access-control-allow-headers: ").append(headers.strip()).append("\r\n");
        }
        b.append("access-control-max-age: ").append(PREFLIGHT_MAX_AGE_SECONDS).append("\r\n");
        return new HttpAnswer.Extras(b.toString(), false);
    }

    /** {@code body} gzip-compressed, as an answer goes to a client that accepts it ({@link #acceptsGzip}). */
    public static byte[] gzip(byte[] body) {
        return HttpAnswer.gzip(body);
    }

    /** True when {@code Accept-Encoding} lists gzip (or x-gzip) with a quality above zero. */
    public static boolean acceptsGzip(String acceptEncoding) {
        if (acceptEncoding == null) {
            return false;
        }
        for (String part : acceptEncoding.split(",")) {
            String[] p = part.split(";");
            String coding = p[0].strip().toLowerCase(Locale.ROOT);
            if (!coding.equals("gzip") && !coding.equals("x-gzip")) {
                continue;
            }
            double q = 1;
            for (int i = 1; i < p.length; i++) {
                String param = p[i].strip();
                if (param.startsWith("q=") || param.startsWith("Q=")) {
                    try {
                        q = Double.parseDouble(param.substring(2));
                    } catch (NumberFormatException e) {
                        q = 0;
                    }
                }
            }
            if (q > 0) {
                return true;
            }
        }
        return false;
    }

    /** True when the body needs decoding before it is read: {@code Content-Encoding} gzip or deflate. */
    static boolean encoded(String contentEncoding) {
        if (contentEncoding == null) {
            return false;
        }
        String c = contentEncoding.strip().toLowerCase(Locale.ROOT);
        return c.equals("gzip") || c.equals("x-gzip") || c.equals("deflate");
    }

    /**
     * The body {@code Content-Encoding} gzip or deflate (zlib, or raw deflate as some clients send it) compressed, at
     * most {@code limit} bytes once decompressed: what is past the limit is never inflated. A body that does not
     * decompress is refused as one that does not parse.
     *
     * @throws ApiException SerializationException for a corrupt body; RequestEntityTooLarge past the limit
     */
    static byte[] decode(String contentEncoding, byte[] body, int limit) {
        String c = contentEncoding.strip().toLowerCase(Locale.ROOT);
        try {
            if (!c.equals("deflate")) {
                return inflate(new GZIPInputStream(new ByteArrayInputStream(body)), limit);
            }
            try {
                return inflate(new InflaterInputStream(new ByteArrayInputStream(body)), limit);
            } catch (java.util.zip.ZipException e) {
                return inflate(new InflaterInputStream(new ByteArrayInputStream(body), new Inflater(true)), limit);
            }
        } catch (IOException e) {
            throw new ApiException(
                    ErrorCode.SERIALIZATION,
                    "The request body could not be decompressed (" + contentEncoding.strip() + "): " + e.getMessage());
        }
    }

    private static byte[] inflate(InputStream in, int limit) throws IOException {
        try (in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
            byte[] chunk = new byte[8192];
            for (int n; (n = in.read(chunk)) > 0; ) {
                if (out.size() + n > limit) {
                    throw new ApiException(
                            ErrorCode.REQUEST_ENTITY_TOO_LARGE,
                            "Request size exceeds the limit of " + limit + " bytes");
                }
                out.write(chunk, 0, n);
            }
            return out.toByteArray();
        }
    }

    /**
     * DynamoDB's health line names the host the client addressed ({@code healthy: dynamodb.us-east-1.amazonaws.com });
     * without a usable {@code Host} header, the region's DynamoDB host.
     */
    static String healthLine(String hostHeader, String fallbackHost) {
        String host = fallbackHost;
        if (hostHeader != null) {
            String h = hostHeader.strip();
            int colon = h.startsWith("[") ? h.indexOf("]:") + 1 : h.lastIndexOf(':');
            String name = colon > 0 ? h.substring(0, colon) : h;
            if (HOST.matcher(name).matches()) {
                host = name;
            }
        }
        return "healthy: " + host + " ";
    }
}
