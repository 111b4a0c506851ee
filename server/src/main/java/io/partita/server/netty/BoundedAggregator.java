package io.partita.server.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.server.http.ErrorBody;
import io.partita.server.http.RequestIds;

/**
 * Aggregates request bodies up to DynamoDB's 16 MB request limit. A larger declared Content-Length is refused with
 * 413 before any of the body is read; the connection is then closed, since the body is left unread.
 */
final class BoundedAggregator extends HttpObjectAggregator {
    static final int MAX_REQUEST_BYTES = 16 * 1024 * 1024;

    BoundedAggregator() {
        super(MAX_REQUEST_BYTES);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        ApiException error = new ApiException(
                ErrorCode.REQUEST_ENTITY_TOO_LARGE,
                "Request size exceeds the limit of " + MAX_REQUEST_BYTES + " bytes");
        ByteBuf answer = HttpAnswer.encode(
                ctx.alloc(),
                HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code(),
                HttpAnswer.JSON,
                ErrorBody.of(error),
                RequestIds.next(),
                false,
                false);
        ctx.pipeline()
                .context(PartitaChannelInitializer.ENCODER)
                .writeAndFlush(answer)
                .addListener(ChannelFutureListener.CLOSE);
    }
}
