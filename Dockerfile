# syntax=docker/dockerfile:1
# Multi-stage build: compile with the Maven wrapper on a JDK, run on a slim JRE.
FROM eclipse-temurin:17-jdk AS build
SHELL ["/bin/bash", "-c"]
WORKDIR /src
COPY mvnw pom.xml ./
COPY .mvn .mvn
COPY protocol protocol
COPY storage storage
COPY cluster cluster
COPY server server
COPY bench bench
COPY conformance-tests conformance-tests
COPY testcontainers testcontainers
RUN ./mvnw -q -B -pl server -am package -DskipTests -Dspotless.check.skip \
    && mkdir -p /opt/partita && cp server/target/partita.jar /opt/partita/partita.jar
# Class-data-sharing training run: start once, answer a request, stop; the archive halves later start-up time. It is
# made from the jar where the image keeps it: an archive only maps for the class path it was made with.
RUN java -XX:ArchiveClassesAtExit=/opt/partita/partita.jsa -Xlog:cds=off -Xlog:cds+dynamic=off \
        -jar /opt/partita/partita.jar --in-memory --port 8000 & pid=$!; \
    for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/8000) 2>/dev/null && break; sleep 0.1; done; \
    exec 3<>/dev/tcp/127.0.0.1/8000; \
    printf 'POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nX-Amz-Date: 20260101T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 Credential=a/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}' >&3; \
    cat <&3 >/dev/null; kill $pid; wait $pid || true; ls -l /opt/partita/partita.jsa

FROM eclipse-temurin:17-jre
# DynamoDB Local's image works from /home/dynamodblocal; Partita keeps its data in /data (a volume), and runs as a user
# of its own, not root. The volume is made and given to that user before VOLUME, so that a new volume inherits it;
# /s3 too, for a volume a cluster's nodes share as their --s3-dir (compose.cluster.yaml).
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /home/partita partita \
    && mkdir -p /data /s3 && chown partita:partita /data /s3
WORKDIR /home/partita
COPY --from=build /opt/partita/partita.jar /opt/partita/partita.jar
COPY --from=build /opt/partita/partita.jsa /opt/partita/partita.jsa
USER partita
VOLUME /data
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s \
    CMD bash -c 'exec 3<>/dev/tcp/127.0.0.1/8000 && printf "GET / HTTP/1.0\r\n\r\n" >&3 && grep -q healthy <&3'
# Network I/O: recent Docker versions' default seccomp profile blocks io_uring, so the container usually runs on
# epoll (the start-up banner says which); --transport chooses explicitly.
# Arguments after the image name are passed to Partita, so DynamoDB Local's habitual
# `-jar DynamoDBLocal.jar -sharedDb -inMemory` or `-dbPath /data` work unchanged.
ENTRYPOINT ["java", "-XX:SharedArchiveFile=/opt/partita/partita.jsa", "-Xlog:cds=off", "-Xlog:cds+dynamic=off", \
    "-Xms64m", "-XX:MaxRAMPercentage=50", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError", \
    "-jar", "/opt/partita/partita.jar", "--data-dir", "/data"]
CMD []
