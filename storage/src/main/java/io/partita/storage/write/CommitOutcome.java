package io.partita.storage.write;

/** How a change's batch ended, as its {@link BatchContributor}s are told. */
public enum CommitOutcome {
    /** The batch is durable and visible. */
    COMMITTED,
    /** Nothing of it reached the commit log (it failed while being built, or the log refused it): as if never tried. */
    NOT_WRITTEN,
    /**
     * Its commit failed after the batch may have reached the log: it is not visible now, but replay may bring it back
     * after a restart, so nothing may act as though it never happened.
     */
    UNKNOWN
}
