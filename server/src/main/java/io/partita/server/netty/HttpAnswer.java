package io.partita.server.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.GZIPOutputStream;

/**
 * Encodes a whole HTTP/1.1 response (status line, headers and body) into one pooled direct buffer, which goes to the
 * socket as one {@code write()} with no further copy. Netty's {@code HttpResponseEncoder} built a header buffer,
 * copied the heap body into a second direct buffer and wrote both with {@code writev}: about 8 % of a GetItem's
 * event-loop time (docs/PERFORMANCE.md).
 */
final class HttpAnswer {
    static final String JSON = "application/x-amz-json-1.0";
    private static final byte[] OK_LINE = "HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SERVER = "server: Server\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADROOM = 320;
    /** RFC 9110's IMF-fixdate: "Tue, 01 Dec 2026 18:00:00 GMT" (two-digit day, unlike RFC_1123_DATE_TIME). */
    private static final DateTimeFormatter HTTP_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH);

    /** The {@code date} header line of the current second, formatted once a second, not once an answer. */
    private record DateLine(long second, byte[] line) {}

    private static volatile DateLine date = new DateLine(-1, new byte[0]);

    /**
     * What differs between answers beyond status and body: extra header lines (each ending in CRLF, or null) and
     * whether the body goes gzip-compressed (the client asked with {@code Accept-Encoding}).
     */
    record Extras(String headers, boolean gzip) {
        static final Extras NONE = new Extras(null, false);
    }

    private HttpAnswer() {}

    /**
     * @param requestId when not null, the answer is an API answer: it carries {@code x-amzn-RequestId} and the
     *     {@code x-amz-crc32} of its body as sent (compressed, if it is: DynamoDB's checksum is of the bytes on the
     *     wire, and the AWS SDKs verify it before they decompress)
     * @param omitBody for HEAD requests: the headers describe the body, which is not sent
     */
    static ByteBuf encode(
            ByteBufAllocator alloc,
            int status,
            String contentType,
            byte[] body,
            String requestId,
            boolean keepAlive,
            boolean omitBody,
            Extras extras) {
        boolean gzip = extras.gzip() && body.length > 0;
        byte[] sent = gzip ? gzip(body) : body;
        int length = HEADROOM
                + (requestId == null ? 0 : requestId.length())
                + (extras.headers() == null ? 0 : extras.headers().length())
                + (omitBody ? 0 : sent.length);
        ByteBuf out = alloc.directBuffer(length);
        if (status == 200) {
            out.writeBytes(OK_LINE);
        } else {
            HttpResponseStatus s = HttpResponseStatus.valueOf(status);
            ByteBufUtil.writeAscii(out, "HTTP/1.1 ");
            ByteBufUtil.writeAscii(out, s.codeAsText());
            out.writeByte(' ');
            ByteBufUtil.writeAscii(out, s.reasonPhrase());
            out.writeByte('\r').writeByte('\n');
        }
        header(out, "content-type: ", contentType);
        header(out, "content-length: ", Integer.toString(sent.length));
        if (gzip) {
            ByteBufUtil.writeAscii(out, "content-encoding: gzip\r\n");
        }
        if (requestId != null) {
            CRC32 crc = new CRC32();
            crc.update(sent);
            header(out, "x-amzn-RequestId: ", requestId);
            header(out, "x-amz-crc32: ", Long.toString(crc.getValue()));
        }
        out.writeBytes(dateLine());
        out.writeBytes(SERVER);
        if (extras.headers() != null) {
            ByteBufUtil.writeAscii(out, extras.headers());
        }
        if (!keepAlive) {
            ByteBufUtil.writeAscii(out, "connection: close\r\n");
        }
        out.writeByte('\r').writeByte('\n');
        if (!omitBody) {
            out.writeBytes(sent);
        }
        return out;
    }

    private static byte[] dateLine() {
        long now = System.currentTimeMillis() / 1000;
        DateLine d = date;
        if (d.second() != now) {
            String text = HTTP_DATE.format(Instant.ofEpochSecond(now).atZone(ZoneOffset.UTC));
            d = new DateLine(now, ("date: " + text + "\r\n").getBytes(StandardCharsets.US_ASCII));
            date = d;
        }
        return d.line();
    }

    static byte[] gzip(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, body.length / 4));
        try (GZIPOutputStream z = new GZIPOutputStream(out, 8192)) {
            z.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in memory: cannot happen
        }
        return out.toByteArray();
    }

    private static void header(ByteBuf out, String nameAndColon, String value) {
        ByteBufUtil.writeAscii(out, nameAndColon);
        ByteBufUtil.writeAscii(out, value);
        out.writeByte('\r').writeByte('\n');
    }
}
