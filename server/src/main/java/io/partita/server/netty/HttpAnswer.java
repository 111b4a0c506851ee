package io.partita.server.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Encodes a whole HTTP/1.1 response (status line, headers and body) into one pooled direct buffer, which goes to the
 * socket as one {@code write()} with no further copy. Netty's {@code HttpResponseEncoder} built a header buffer,
 * copied the heap body into a second direct buffer and wrote both with {@code writev}: about 8 % of a GetItem's
 * event-loop time (docs/PERFORMANCE.md).
 */
final class HttpAnswer {
    static final String JSON = "application/x-amz-json-1.0";
    private static final byte[] OK_LINE = "HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADROOM = 256;

    private HttpAnswer() {}

    /**
     * @param requestId when not null, the answer is an API answer: it carries {@code x-amzn-RequestId} and the
     *     {@code x-amz-crc32} of its body, which the AWS SDKs verify
     * @param omitBody for HEAD requests: the headers describe the body, which is not sent
     */
    static ByteBuf encode(
            ByteBufAllocator alloc,
            int status,
            String contentType,
            byte[] body,
            String requestId,
            boolean keepAlive,
            boolean omitBody) {
        int length = HEADROOM + (requestId == null ? 0 : requestId.length()) + (omitBody ? 0 : body.length);
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
        header(out, "content-length: ", Integer.toString(body.length));
        if (requestId != null) {
            CRC32 crc = new CRC32();
            crc.update(body);
            header(out, "x-amzn-RequestId: ", requestId);
            header(out, "x-amz-crc32: ", Long.toString(crc.getValue()));
        }
        if (!keepAlive) {
            ByteBufUtil.writeAscii(out, "connection: close\r\n");
        }
        out.writeByte('\r').writeByte('\n');
        if (!omitBody) {
            out.writeBytes(body);
        }
        return out;
    }

    private static void header(ByteBuf out, String nameAndColon, String value) {
        ByteBufUtil.writeAscii(out, nameAndColon);
        ByteBufUtil.writeAscii(out, value);
        out.writeByte('\r').writeByte('\n');
    }
}
