"""Parses a /metrics answer with the Prometheus project's own Python client (Debian's python3-prometheus-client):
argv[1] is 'prometheus' (the text format 0.0.4) or 'openmetrics' (the stricter parser: it refuses a family named
twice, interleaved families, a counter without _total...). Reads the body on stdin; prints the families as JSON, or
exits non-zero with the parser's error."""
import json
import sys

if sys.argv[1] == "openmetrics":
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
else:
    from prometheus_client.parser import text_string_to_metric_families

families = []
for f in text_string_to_metric_families(sys.stdin.read()):
    families.append({
        "name": f.name,
        "type": f.type,
        "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples],
    })
json.dump(families, sys.stdout)
