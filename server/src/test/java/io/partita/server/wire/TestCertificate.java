package io.partita.server.wire;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Assumptions;

/**
 * A self-signed certificate for {@code localhost} and {@code 127.0.0.1}, made by openssl as a user would make one
 * (its key in PKCS#8 PEM), and a trust manager that trusts it.
 */
public record TestCertificate(Path certificate, Path privateKey) {
    /** Makes one in {@code dir}; skips the test where there is no openssl. */
    public static TestCertificate make(Path dir) throws Exception {
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "openssl makes the test certificate");
        Process openssl = new ProcessBuilder(
                        "/usr/bin/openssl",
                        "req",
                        "-x509",
                        "-newkey",
                        "rsa:2048",
                        "-nodes",
                        "-days",
                        "2",
                        "-subj",
                        "/CN=localhost",
                        "-addext",
                        "subjectAltName=DNS:localhost,IP:127.0.0.1",
                        "-keyout",
                        key.toString(),
                        "-out",
                        cert.toString())
                .redirectErrorStream(true)
                .start();
        String said = new String(openssl.getInputStream().readAllBytes());
        if (openssl.waitFor() != 0) {
            throw new IllegalStateException("openssl failed: " + said);
        }
        return new TestCertificate(cert, key);
    }

    public X509Certificate x509() throws Exception {
        try (InputStream in = Files.newInputStream(certificate)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /** Trust managers that trust this certificate alone. */
    public TrustManagerFactory trust() throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        store.setCertificateEntry("partita", x509());
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(store);
        return f;
    }
}
