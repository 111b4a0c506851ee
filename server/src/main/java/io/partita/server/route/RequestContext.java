package io.partita.server.route;

import java.time.Clock;

/**
 * What a handler knows about the request besides its body.
 *
 * @param region the region named in the request's credential scope (open mode accepts any)
 * @param accountId the account tables belong to; open mode uses DynamoDB Local's {@code 000000000000}
 * @param host the Host header, used where DynamoDB answers its own address
 * @param target the {@code X-Amz-Target}, for messages that name the operation
 * @param isolated strict mode: every account sees only its own tables, and an ARN of another account is refused
 * @param cutByRanges marked by a cluster node as a request on a table cut by ranges, to be checked and then refused
 *     ({@link io.partita.server.op.CutTables#HEADER})
 * @param share what a cluster node marked this request as, a share of a request over a table cut by ranges ({@link
 *     io.partita.server.op.CutTables#share}): {@link io.partita.server.op.CutTables#RANGE} on a restore, whose group
 *     restores its own range; the backup's id on a CreateBackup, whose group backs up its own range under it; or null
 */
public record RequestContext(
        String requestId,
        String region,
        String accountId,
        String host,
        Clock clock,
        String target,
        boolean isolated,
        boolean cutByRanges,
        String share) {
    /** A request not marked as one on a table cut by ranges ({@link io.partita.server.op.CutTables}). */
    public RequestContext(
            String requestId,
            String region,
            String accountId,
            String host,
            Clock clock,
            String target,
            boolean isolated) {
        this(requestId, region, accountId, host, clock, target, isolated, false, null);
    }

    /** A request marked, or not, as one on a table cut by ranges to check and then refuse. */
    public RequestContext(
            String requestId,
            String region,
            String accountId,
            String host,
            Clock clock,
            String target,
            boolean isolated,
            boolean cutByRanges) {
        this(requestId, region, accountId, host, clock, target, isolated, cutByRanges, null);
    }

    /** Whether this is a restore's share: its group restores its own range of a table cut by ranges. */
    public boolean restoresRange() {
        return io.partita.server.op.CutTables.RANGE.equals(share);
    }

    /** The id of the backup whose part this CreateBackup's group makes of its own range, or null. */
    public String backupPart() {
        return share == null || restoresRange() ? null : share;
    }

    /**
     * This request as one of {@code target}: a part of a client's request that Partita runs as one of its own
     * operations (a share of a request over several Raft groups) names the client's operation in its messages.
     */
    public RequestContext as(String target) {
        return new RequestContext(requestId, region, accountId, host, clock, target, isolated, cutByRanges, share);
    }

    /** The operation's name ({@code GetItem}), from the target. */
    public String operation() {
        int dot = target == null ? -1 : target.indexOf('.');
        return dot < 0 ? String.valueOf(target) : target.substring(dot + 1);
    }
}
