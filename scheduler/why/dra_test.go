package why

import (
	"os"
	"strings"
	"testing"
)

// The DynamicResources group names the pod's claim with its request and,
// per node, the devices and the claims (and pods) holding them.
func TestVerdictNamesClaimsAndDeviceHolders(t *testing.T) {
	data, err := os.ReadFile("../../testdata/dra-gpus.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := run(t, string(data))
	v := strings.Join(Verdict(inputFor(t, e, "default/finetune")), "\n")
	for _, want := range []string{
		`cannot allocate all claims (DynamicResources): claim default/finetune-gpus (gpus: 2 × gpu.example.com where device.attributes["gpu.example.com"].model == "a100")`,
		"2 devices, 2 held by default/batch-gpus (pod default/batch) (gpu-a)",
		"1 device, 1 held by default/inference-gpu (pod default/inference) (gpu-b)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict lacks %q:\n%s", want, v)
		}
	}
}
