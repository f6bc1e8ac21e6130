package snapshot

import (
	"strings"
	"testing"
)

// TestClusterInfoDumpToStdout: `kubectl cluster-info dump > file` puts
// the containers' logs between its Lists; they are skipped, with a note,
// and the objects after them keep their lines.
func TestClusterInfoDumpToStdout(t *testing.T) {
	dump := `{
    "kind": "NodeList",
    "apiVersion": "v1",
    "metadata": {},
    "items": [
        {"metadata": {"name": "n1"}, "status": {"capacity": {"cpu": "4"}}}
    ]
}
{
    "kind": "PodList",
    "apiVersion": "v1",
    "metadata": {},
    "items": [
        {"metadata": {"name": "web", "namespace": "shop"}, "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]}}
    ]
}
==== START logs for container c of pod shop/web ====
{"level":"info","msg":"listening"}
==== END logs for container c of pod shop/web ====
==== START logs for container c of pod shop/api ====
Request log error: the server rejected our request
==== END logs for container c of pod shop/api ====
{
    "kind": "PodList",
    "apiVersion": "v1",
    "metadata": {},
    "items": [
        {"metadata": {"name": "api", "namespace": "shop"}, "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "lots"}}}]}}
    ]
}
`
	c, r := mustLoad(t, "dump.json", dump)
	if got := podNames(c); len(got) != 1 || got[0] != "shop/web" || len(c.Nodes) != 1 {
		t.Errorf("pods %v, %d nodes", got, len(c.Nodes))
	}
	for _, want := range []string{
		"dump.json: warning: kubectl cluster-info dump output: the logs of 2 containers between its Lists are skipped",
		"dump.json:28: Pod shop/api: spec.containers[0].resources.requests.cpu",
	} {
		if !strings.Contains(r.String(), want) {
			t.Errorf("missing %q in:\n%s", want, r)
		}
	}
}
