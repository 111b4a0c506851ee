package io.partita.server.op.query;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.message.ReadPageOutput;
import io.partita.protocol.message.ScanInput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.key.KeyRanges;
import io.partita.storage.table.TableCatalog.Table;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Scan: every item in partition-hash order, as DynamoDB walks a table. A parallel scan segment is an equal slice of
 * the 64-bit hash space, so segments are disjoint and together cover every item exactly once.
 */
public final class ScanHandler implements OperationHandler<ScanInput, ReadPageOutput> {
    /** DynamoDB's maximum TotalSegments. */
    static final long MAX_SEGMENTS = 1_000_000;

    private final StorageEngine storage;
    private final ExpressionCache cache;
    /** Whether a page that reaches the end of the store's items names the last item it scanned. */
    private final boolean keyAtEnd;

    public ScanHandler(StorageEngine storage, ExpressionCache cache) {
        this(storage, cache, false);
    }

    private ScanHandler(StorageEngine storage, ExpressionCache cache, boolean keyAtEnd) {
        this.storage = storage;
        this.cache = cache;
        this.keyAtEnd = keyAtEnd;
    }

    /**
     * Partita's own {@code Partita.ScanRange}: a Scan of the hash ranges of a table that one group of a cluster holds
     * ({@code --cluster-partition-groups}, docs/CLUSTER.md), whose page, when it reaches their end, names the last item
     * it scanned ({@link ReadPageOutput#partitaLastScannedKey}): the node that walks the table's groups goes on with
     * the next group, or answers with that key as the page's {@code LastEvaluatedKey}.
     */
    public static ScanHandler ofRange(StorageEngine storage, ExpressionCache cache) {
        return new ScanHandler(storage, cache, true);
    }

    @Override
    public Class<ScanInput> inputType() {
        return ScanInput.class;
    }

    @Override
    public ReadPageOutput handle(RequestContext context, ScanInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        ReadRequests.constrain(
                c,
                in.select(),
                in.limit(),
                in.conditionalOperator(),
                in.returnConsumedCapacity(),
                in.attributesToGet(),
                in.indexName());
        c.atLeast("totalSegments", in.totalSegments(), 1)
                .atMost("totalSegments", in.totalSegments(), MAX_SEGMENTS)
                .atLeast("segment", in.segment(), 0)
                .atMost("segment", in.segment(), MAX_SEGMENTS - 1);
        c.check();
        checkSegments(in.segment(), in.totalSegments());
        ItemExpressions.noMixing(
                new Object[] {
                    "AttributesToGet", in.attributesToGet(),
                    "ScanFilter", in.scanFilter(),
                    "ConditionalOperator", in.conditionalOperator()
                },
                new Object[] {
                    "ProjectionExpression", in.projectionExpression(), "FilterExpression", in.filterExpression()
                });
        ReadRequests.checkSelect(in.select(), in.indexName(), in.projectionExpression(), in.attributesToGet());
        ItemExpressions.placeholdersNeedExpressions(
                in.filterExpression() != null || in.projectionExpression() != null,
                in.expressionAttributeNames(),
                in.expressionAttributeValues());
        ExpressionResolver resolver =
                new ExpressionResolver(in.expressionAttributeNames(), in.expressionAttributeValues());
        Condition filter =
                ReadRequests.filter(cache, resolver, in.filterExpression(), in.scanFilter(), in.conditionalOperator());
        List<Path> projection =
                ReadRequests.projection(cache, resolver, in.projectionExpression(), in.attributesToGet());
        resolver.checkAllUsed();

        Table table =
                storage.tables().require(TableNames.resolve(context, in.tableName()), "Requested resource not found");
        ReadTarget target = ReadTarget.of(table, in.indexName());
        ReadRequests.checkTarget(target, in.consistentRead(), in.select());
        boolean fetch = target.fetches(in.select(), projection);
        // A group's page of a Scan of a global secondary index over every group (its rows are in each, merged in the
        // index's order): every group reads after the start key, and names each row it reads.
        boolean merged = keyAtEnd && target.global() && in.partitaHashRange() != null;
        KeyRanges.Range range = in.totalSegments() == null
                ? new KeyRanges.Range(null, null)
                : KeyRanges.segment(in.segment().intValue(), in.totalSegments().intValue());
        if (in.exclusiveStartKey() != null) {
            byte[] start = target.startKey(in.exclusiveStartKey());
            if (!range.contains(start)) {
                // DynamoDB's words, from a live capture (no final period).
                throw ApiException.validation("The provided starting key is invalid: Invalid ExclusiveStartKey."
                        + " Please use ExclusiveStartKey with correct Segment. TotalSegments: " + in.totalSegments()
                        + " Segment: " + in.segment());
            }
            // A key outside the range this group's store holds (a move took it to another group since the client's
            // router chose this one): refused as a key's request is, 503, and sent again. (A global secondary index's
            // row begins with its own partition's hash: the item's is its table key's.)
            if (!merged) {
                io.partita.storage.table.HashRange.require(
                        table.metadata(),
                        target.global()
                                ? io.partita.storage.key.ItemKeyEncoder.partitionHash(in.exclusiveStartKey()
                                        .get(table.metadata()
                                                .keySchema()
                                                .partitionKey()
                                                .name()))
                                : ByteBuffer.wrap(start).getLong());
            }
            range = range.resumeAfter(start, true);
        }
        io.partita.storage.table.HashRange held = table.metadata().hashRange();
        if (held != null && held.receiving()) {
            throw io.partita.storage.table.HashRange.receiving(table.metadata()); // a move is copying its items here
        }
        if (keyAtEnd
                && held != null
                && in.partitaHashRange() != null
                && !in.partitaHashRange().equals(text(held))) {
            // The walk's record of the table's ranges is behind (or ahead of) this store's: it would skip, or read
            // twice, the range a move took from one group to another. Sent again, it walks the ranges as they are now.
            throw new ApiException(
                    io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                    "Partita: the hash range of table " + table.metadata().name() + " this group holds is " + text(held)
                            + ", not " + in.partitaHashRange() + " (a range moved): send it again");
        }
        // A Scan of a GSI answered by this group alone (a PartiQL SELECT of the index that binds the table's partition
        // key, routed to that key's group): the key's range must be this store's, before and after the read.
        Long bound = !keyAtEnd && target.global() && held != null ? QueryHandler.boundHash(table, null, filter) : null;
        if (!keyAtEnd && target.global() && held != null) {
            if (bound != null) {
                io.partita.storage.table.HashRange.require(table.metadata(), bound);
            } else if (held.first() != 0 || held.last() != -1L || held.receiving()) {
                throw new ApiException(
                        io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                        "Partita: table " + table.metadata().name() + " is cut by hash ranges, and a Scan of its"
                                + " global secondary index " + in.indexName() + " reads every range (its router's"
                                + " record of the table's ranges is behind); send it again");
            }
        }
        if (held != null && !target.global()) {
            // The items of the range this group holds alone: those a move left here, to be deleted, are another's. (A
            // global secondary index's rows are in the order of its own keys: each row is looked at, PageReader.)
            range = range.intersect(KeyRanges.hashes(held.first(), held.last()));
        }
        KeyRanges.Range pageRange = range;
        // A group's page of a walk over a table's groups reads what is left of the walk's 1 MB (at least one item).
        long pageBytes = keyAtEnd && in.partitaPageBytes() != null
                ? Math.max(1, Math.min(PageReader.MAX_PAGE_BYTES, in.partitaPageBytes()))
                : PageReader.MAX_PAGE_BYTES;
        // A page is admitted and charged on the partition where it starts.
        long startHash = range.lower() == null || range.lower().length < 8
                ? 0
                : ByteBuffer.wrap(range.lower()).getLong();
        if (Boolean.TRUE.equals(in.consistentRead())) {
            storage.awaitConsistentRead();
        }
        return ReadRequests.answer(
                context, target, startHash, null, in.consistentRead(), in.select(), in.returnConsumedCapacity(), () -> {
                    PageReader.Page page = PageReader.read(
                            storage,
                            target,
                            pageRange,
                            true,
                            in.limit(),
                            filter,
                            projection,
                            "COUNT".equals(in.select()),
                            fetch,
                            keyAtEnd,
                            pageBytes,
                            target.global() ? held : null,
                            merged && held != null);
                    // A range move may have narrowed the range while the page was read, and switched the hashes it
                    // gave up to another group since, which may have taken newer writes: sent again.
                    storage.requireRangeAfterRead(table, held);
                    if (bound != null) {
                        storage.requireServedAfterRead(table, bound);
                    }
                    return page;
                });
    }

    /** A hash range as a walk names it ({@code first-last}, unsigned): {@link ScanInput#partitaHashRange}. */
    public static String text(io.partita.storage.table.HashRange range) {
        return Long.toUnsignedString(range.first()) + "-" + Long.toUnsignedString(range.last());
    }

    /** DynamoDB's parallel-scan parameter rules (Scan.ParallelScan). */
    private static void checkSegments(Long segment, Long total) {
        if (segment != null && total == null) {
            throw ApiException.validation("The TotalSegments parameter is required but was not present in the request"
                    + " when Segment parameter is present");
        }
        if (total != null && segment == null) {
            throw ApiException.validation("The Segment parameter is required but was not present in the request when"
                    + " parameter TotalSegments is present");
        }
        if (segment != null && segment >= total) {
            throw ApiException.validation("The Segment parameter is zero-based and must be less than parameter"
                    + " TotalSegments: Segment: " + segment + " is not less than TotalSegments: " + total);
        }
    }
}
