package io.partita.protocol.error;

/**
 * Every client-visible error Partita answers, with DynamoDB's full {@code __type} and HTTP status.
 *
 * <p>The prefixes follow DynamoDB: framework errors come from {@code com.amazon.coral.*}, service errors from
 * {@code com.amazonaws.dynamodb.v20120810}. The SDKs only read the part after {@code #}, but some tools compare the
 * whole string.
 */
public enum ErrorCode {
    VALIDATION("com.amazon.coral.validate#ValidationException", 400),
    SERIALIZATION("com.amazon.coral.service#SerializationException", 400),
    UNKNOWN_OPERATION("com.amazon.coral.service#UnknownOperationException", 400),
    MISSING_AUTHENTICATION_TOKEN("com.amazon.coral.service#MissingAuthenticationTokenException", 400),
    INCOMPLETE_SIGNATURE("com.amazon.coral.service#IncompleteSignatureException", 400),
    INVALID_SIGNATURE("com.amazon.coral.service#InvalidSignatureException", 400),
    /** Its body says {@code Message}, capitalised, unlike DynamoDB's own errors (live captures). */
    ACCESS_DENIED("com.amazon.coral.service#AccessDeniedException", 400),
    UNRECOGNIZED_CLIENT("com.amazon.coral.service#UnrecognizedClientException", 400),
    REQUEST_ENTITY_TOO_LARGE("com.amazon.coral.service#RequestEntityTooLarge", 413),
    RESOURCE_NOT_FOUND("com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", 400),
    RESOURCE_IN_USE("com.amazonaws.dynamodb.v20120810#ResourceInUseException", 400),
    LIMIT_EXCEEDED("com.amazonaws.dynamodb.v20120810#LimitExceededException", 400),
    PROVISIONED_THROUGHPUT_EXCEEDED("com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", 400),
    THROTTLING("com.amazon.coral.availability#ThrottlingException", 400),
    REQUEST_LIMIT_EXCEEDED("com.amazonaws.dynamodb.v20120810#RequestLimitExceeded", 400),
    ITEM_COLLECTION_SIZE_LIMIT_EXCEEDED(
            "com.amazonaws.dynamodb.v20120810#ItemCollectionSizeLimitExceededException", 400),
    TRIMMED_DATA_ACCESS("com.amazonaws.dynamodb.v20120810#TrimmedDataAccessException", 400),
    EXPIRED_ITERATOR("com.amazonaws.dynamodb.v20120810#ExpiredIteratorException", 400),
    CONDITIONAL_CHECK_FAILED("com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", 400),
    TRANSACTION_CONFLICT("com.amazonaws.dynamodb.v20120810#TransactionConflictException", 400),
    TRANSACTION_CANCELED("com.amazonaws.dynamodb.v20120810#TransactionCanceledException", 400),
    TRANSACTION_IN_PROGRESS("com.amazonaws.dynamodb.v20120810#TransactionInProgressException", 400),
    IDEMPOTENT_PARAMETER_MISMATCH("com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException", 400),
    DUPLICATE_ITEM("com.amazonaws.dynamodb.v20120810#DuplicateItemException", 400),
    // On-demand backups: the API's own exceptions rather than ResourceNotFound/ResourceInUse.
    TABLE_NOT_FOUND("com.amazonaws.dynamodb.v20120810#TableNotFoundException", 400),
    TABLE_ALREADY_EXISTS("com.amazonaws.dynamodb.v20120810#TableAlreadyExistsException", 400),
    TABLE_IN_USE("com.amazonaws.dynamodb.v20120810#TableInUseException", 400),
    BACKUP_NOT_FOUND("com.amazonaws.dynamodb.v20120810#BackupNotFoundException", 400),
    BACKUP_IN_USE("com.amazonaws.dynamodb.v20120810#BackupInUseException", 400),
    POINT_IN_TIME_RECOVERY_UNAVAILABLE("com.amazonaws.dynamodb.v20120810#PointInTimeRecoveryUnavailableException", 400),
    INVALID_RESTORE_TIME("com.amazonaws.dynamodb.v20120810#InvalidRestoreTimeException", 400),
    INVALID_EXPORT_TIME("com.amazonaws.dynamodb.v20120810#InvalidExportTimeException", 400),
    EXPORT_NOT_FOUND("com.amazonaws.dynamodb.v20120810#ExportNotFoundException", 400),
    EXPORT_CONFLICT("com.amazonaws.dynamodb.v20120810#ExportConflictException", 400),
    IMPORT_NOT_FOUND("com.amazonaws.dynamodb.v20120810#ImportNotFoundException", 400),
    IMPORT_CONFLICT("com.amazonaws.dynamodb.v20120810#ImportConflictException", 400),
    INTERNAL_SERVER_ERROR("com.amazonaws.dynamodb.v20120810#InternalServerError", 500),
    /**
     * DynamoDB's "Service Unavailable (HTTP 503) ... a temporary state" ("Error handling with DynamoDB"); its type is
     * not in the API's model, so the name is the one other AWS services give it. Partita's disk is full or failing.
     */
    SERVICE_UNAVAILABLE("com.amazonaws.dynamodb.v20120810#ServiceUnavailableException", 503),
    /**
     * Partita's own, never a client's: in a cluster with a group per table, the account's own group has placed a new
     * table in a group of its own, and the node the client sent the request to sends it there (docs/CLUSTER.md). 421
     * is HTTP's "Misdirected Request", which no DynamoDB error uses.
     */
    TABLE_PLACED("io.partita.cluster#TablePlacedElsewhere", 421);

    private final String type;
    private final int httpStatus;

    ErrorCode(String type, int httpStatus) {
        this.type = type;
        this.httpStatus = httpStatus;
    }

    /** The full {@code __type} value of the error body. */
    public String type() {
        return type;
    }

    public int httpStatus() {
        return httpStatus;
    }
}
