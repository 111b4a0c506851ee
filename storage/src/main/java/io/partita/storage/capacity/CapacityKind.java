package io.partita.storage.capacity;

/** Which of a partition's two budgets a request draws on. */
public enum CapacityKind {
    READ("Read"),
    WRITE("Write");

    private final String word;

    CapacityKind(String word) {
        this.word = word;
    }

    /** The word DynamoDB puts in throttling reasons ({@code TableReadKeyRangeThroughputExceeded}). */
    public String word() {
        return word;
    }
}
