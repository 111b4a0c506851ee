package io.partita.protocol.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConditionEvaluatorTest {
    private static final Map<String, AttributeValue> ITEM = Fixtures.item("{'s':{'S':'apple'},'n':{'N':'10'},"
            + "'b':{'B':'AQID'},'t':{'BOOL':true},'z':{'NULL':true},'ss':{'SS':['x','y']},'ns':{'NS':['1','2']},"
            + "'l':{'L':[{'S':'p'},{'N':'5'}]},'m':{'M':{'k':{'S':'v'},'deep':{'L':[{'M':{'q':{'N':'7'}}}]}}},"
            + "'emoji':{'S':'\uD83D\uDE00'},'bmp':{'S':'\uFFFD'}}");
    private static final String VALUES = "{':apple':{'S':'apple'},':ap':{'S':'ap'},':five':{'N':'5'},"
            + "':ten':{'N':'10'},':twenty':{'N':'20'},':x':{'S':'x'},':one':{'N':'1'},':p':{'S':'p'},"
            + "':S':{'S':'S'},':SS':{'S':'SS'},':N':{'N':'10.0'},':bin':{'B':'AQ=='},':true':{'BOOL':true},"
            + "':set':{'SS':['y','x']},':seven':{'N':'7'},':three':{'N':'3'},':two':{'N':'2'},':L':{'S':'L'}}";

    private static boolean eval(String expression) {
        ExpressionResolver r = Fixtures.resolver(null, VALUES);
        var c = r.resolve(ExpressionParser.parseCondition(expression, "ConditionExpression"), "ConditionExpression");
        return ConditionEvaluator.test(c, ITEM);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "s = :apple | true",
                "s <> :apple | false",
                "absent <> :apple | true",
                "absent = :apple | false",
                "n = :N | true",
                "n > :five AND n < :twenty | true",
                "n BETWEEN :five AND :ten | true",
                "n BETWEEN :ten AND :twenty | true",
                "s < :x | true",
                "emoji > bmp | true",
                "s > :five | false",
                "s IN (:x, :apple) | true",
                "n IN (:x, :five) | false",
                "ss = :set | true",
                "attribute_exists(m.k) | true",
                "attribute_exists(m.nope) | false",
                "attribute_not_exists(l[5]) | true",
                "attribute_type(ss, :SS) | true",
                "attribute_type(s, :S) | true",
                "attribute_type(l, :L) | true",
                "begins_with(s, :ap) | true",
                "begins_with(b, :bin) | true",
                "begins_with(n, :ap) | false",
                "contains(s, :p) | true",
                "contains(ss, :x) | true",
                "contains(ns, :one) | true",
                "contains(l, :p) | true",
                "contains(l, :five) | true",
                "contains(n, :one) | false",
                "size(s) = :five | true",
                "size(ss) = :two | true",
                "size(l) = :two | true",
                "size(m) = :two | true",
                "size(b) = :three | true",
                "size(n) = :two | false",
                "m.deep[0].q = :seven | true",
                "NOT s = :apple OR n = :ten | true",
                "NOT (s = :apple OR n = :ten) | false",
                "t = :true AND attribute_type(z, :S) | false",
            })
    void evaluatesAsDynamoDbDoes(String expression, boolean expected) {
        assertThat(eval(expression)).as(expression).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "n < :true | Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: BOOL",
                "begins_with(s, :five) | Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
                "n BETWEEN :twenty AND :ten | Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:20}, upper bound operand: AttributeValue: {N:10}",
                "n BETWEEN :ten AND :x | Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {S:x}",
                "attribute_exists(:x) | Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists",
                "attribute_exists(a, b) | Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2",
                "size(a, b) = :one | Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: size, number of operands: 2",
                "attribute_type(s, :x) | Invalid ConditionExpression: Invalid attribute type name found; type: x, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}",
                "s = s | Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [s]",
                "s = :nope | Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :nope",
                "#nope = :x | Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #nope",
            })
    void staticMisuseIsRefused(String expression, String message) {
        assertThatThrownBy(() -> eval(expression))
                .isInstanceOf(ApiException.class)
                .hasMessage(message);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{} | {':v':{'S':'x'}} | ExpressionAttributeNames must not be empty",
                "{'#a':'a'} | {} | ExpressionAttributeValues must not be empty",
                "{'a':'a'} | | ExpressionAttributeNames contains invalid key: Syntax error; key: \"a\"",
                "| {'v':{'S':'x'}} | ExpressionAttributeValues contains invalid key: Syntax error; key: \"v\"",
                "{'#a':''} | | ExpressionAttributeNames contains invalid value: Empty attribute name for key #a",
            })
    void placeholderMapsAreChecked(String names, String values, String message) {
        assertThatThrownBy(() -> Fixtures.resolver(names, values))
                .isInstanceOf(ApiException.class)
                .hasMessage(message);
    }

    @org.junit.jupiter.api.Test
    void unusedNamesAreReportedBeforeUnusedValues() {
        ExpressionResolver r = Fixtures.resolver("{'#a':'s','#b':'x','#c':'y'}", "{':v':{'S':'apple'},':w':{'S':'q'}}");
        r.resolve(ExpressionParser.parseCondition("#a = :v", "ConditionExpression"), "ConditionExpression");
        assertThatThrownBy(r::checkAllUsed)
                .hasMessage("Value provided in ExpressionAttributeNames unused in expressions: keys: {#b, #c}");
        ExpressionResolver values = Fixtures.resolver(null, "{':v':{'S':'apple'},':w':{'S':'q'}}");
        values.resolve(ExpressionParser.parseCondition("s = :v", "ConditionExpression"), "ConditionExpression");
        assertThatThrownBy(values::checkAllUsed)
                .hasMessage("Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}");
    }
}
