package io.partita.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AccountsTest {
    @TempDir
    Path dir;

    @Test
    void keysAreReadWithTheirAccounts() throws Exception {
        Path f = write(
                "{\"accounts\": [{\"accountId\": \"111122223333\", \"accessKeyId\": \"AK1\", \"secretAccessKey\":"
                        + " \"s1\"}, {\"accountId\": \"111122223333\", \"accessKeyId\": \"AK2\", \"secretAccessKey\": \"s2\"},"
                        + " {\"accountId\": \"444455556666\", \"accessKeyId\": \"AK3\", \"secretAccessKey\": \"s3\"}]}");
        Accounts a = Accounts.load(f);
        assertThat(a.size()).isEqualTo(3);
        assertThat(a.find("AK2")).isEqualTo(new Accounts.Key("AK2", "s2", "111122223333"));
        assertThat(a.find("AK3").accountId()).isEqualTo("444455556666");
        assertThat(a.find("nobody")).isNull();

        // One account's keys alone: what a cluster node's server for that account's group verifies.
        Accounts first = a.only("111122223333");
        assertThat(first.size()).isEqualTo(2);
        assertThat(first.accountIds()).containsExactly("111122223333");
        assertThat(first.find("AK3")).isNull();
        assertThat(a.only("999999999999").size()).isZero();
        // No clusterAdmins: no account may change a cluster's members.
        assertThat(a.hasClusterAdmins()).isFalse();
        assertThat(a.isClusterAdmin("111122223333")).isFalse();
    }

    @Test
    void clusterAdminsNameAccountsThatMayChangeAClustersMembers() throws Exception {
        Accounts a = Accounts.load(
                write("{\"accounts\": [{\"accountId\": \"111122223333\", \"accessKeyId\": \"AK1\", \"secretAccessKey\":"
                        + " \"s1\"}, {\"accountId\": \"444455556666\", \"accessKeyId\": \"AK2\", \"secretAccessKey\":"
                        + " \"s2\"}], \"clusterAdmins\": [\"444455556666\"]}"));
        assertThat(a.hasClusterAdmins()).isTrue();
        assertThat(a.isClusterAdmin("444455556666")).isTrue();
        assertThat(a.isClusterAdmin("111122223333")).isFalse();
        String one = "{\"accounts\": [{\"accountId\": \"111122223333\", \"accessKeyId\": \"A\", \"secretAccessKey\":"
                + " \"s\"}], \"clusterAdmins\": ";
        for (String[] bad : new String[][] {
            {"\"111122223333\"}", "clusterAdmins must be a list"},
            {"[\"1234\"]}", "not a 12-digit account id"},
            {"[7]}", "not a 12-digit account id"},
            {"[\"999999999999\"]}", "clusterAdmins names account 999999999999, which has no key"}
        }) {
            Path f = write(one + bad[0]);
            assertThatThrownBy(() -> Accounts.load(f)).as(bad[0]).hasMessageContaining(bad[1]);
        }
    }

    @Test
    void theAccessKeyARequestNamesIsFoundWithoutVerifyingIt() {
        assertThat(SigV4Verifier.accessKeyOf(
                        "AWS4-HMAC-SHA256 Credential=AKIDALICE/20261204/us-east-1/dynamodb/aws4_request,"
                                + " SignedHeaders=host;x-amz-date, Signature=abc",
                        null))
                .isEqualTo("AKIDALICE");
        // Presigned: the query's credential, URL-encoded, wins over any header.
        assertThat(SigV4Verifier.accessKeyOf(
                        null,
                        "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDBOB%2F20261204%2Fus-east-1%2Fdynamodb"
                                + "%2Faws4_request&X-Amz-Signature=00"))
                .isEqualTo("AKIDBOB");
        assertThat(SigV4Verifier.accessKeyOf(null, null)).isNull();
        assertThat(SigV4Verifier.accessKeyOf("AWS4-HMAC-SHA256 Signature=abc", "a=b"))
                .isNull();
        assertThat(SigV4Verifier.accessKeyOf("AWS4-HMAC-SHA256 Credential=/20261204/x", null))
                .isNull();
    }

    @Test
    void aFileThatIsNotOneIsRefusedWithWhereItIsWrong() throws Exception {
        for (String[] bad : new String[][] {
            {"{}", "expected {\"accounts\""},
            {"{\"accounts\": []}", "at least one entry"},
            {
                "{\"accounts\": [{\"accountId\": \"1234\", \"accessKeyId\": \"A\", \"secretAccessKey\": \"s\"}]}",
                "accounts[0]: accountId must be 12 digits"
            },
            {
                "{\"accounts\": [{\"accountId\": \"111122223333\", \"accessKeyId\": \"A\"}]}",
                "accounts[0]: secretAccessKey is missing"
            },
            {
                "{\"accounts\": [{\"accountId\": \"111122223333\", \"accessKeyId\": \"A/B\", \"secretAccessKey\": \"s\"}]}",
                "accessKeyId must be"
            },
            {
                "{\"accounts\": [{\"accountId\": \"111122223333\", \"accessKeyId\": \"A\", \"secretAccessKey\": \"s\"},"
                        + " {\"accountId\": \"444455556666\", \"accessKeyId\": \"A\", \"secretAccessKey\": \"t\"}]}",
                "accounts[1]: access key A is listed twice"
            }
        }) {
            Path f = write(bad[0]);
            assertThatThrownBy(() -> Accounts.load(f)).as(bad[0]).hasMessageContaining(bad[1]);
        }
    }

    private Path write(String json) throws Exception {
        Path f = Files.createTempFile(dir, "credentials", ".json");
        Files.writeString(f, json);
        return f;
    }
}
