package io.partita.protocol.message;

/** The output of DescribeTable: {@code {"Table": …}}. */
public record TableOutput(TableDescription table) {}
