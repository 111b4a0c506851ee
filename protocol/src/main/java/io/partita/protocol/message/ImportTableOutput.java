package io.partita.protocol.message;

/** DynamoDB's {@code ImportTableOutput} and {@code DescribeImportOutput}. */
public record ImportTableOutput(ImportTableDescription importTableDescription) {}
