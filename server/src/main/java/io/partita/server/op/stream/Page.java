package io.partita.server.op.stream;

import java.util.List;
import java.util.function.Function;

/**
 * One page of a list DynamoDB Streams pages by the id of its last element (ListStreams by stream ARN, DescribeStream
 * by shard id): after {@code start}, at most {@code limit}; a start that is not in the list ends it, as DynamoDB
 * answers an unknown {@code ExclusiveStartShardId} with no shards.
 */
record Page<T>(List<T> items, String lastEvaluated) {
    static <T> Page<T> of(List<T> all, Function<T, String> id, String start, Long limit, long maxLimit) {
        int from = 0;
        if (start != null) {
            from = all.size();
            for (int i = 0; i < all.size(); i++) {
                if (id.apply(all.get(i)).equals(start)) {
                    from = i + 1;
                }
            }
        }
        int n = limit == null ? (int) maxLimit : limit.intValue();
        int to = Math.min(all.size(), from + n);
        List<T> page = List.copyOf(all.subList(from, to));
        return new Page<>(page, to < all.size() && !page.isEmpty() ? id.apply(page.get(page.size() - 1)) : null);
    }
}
