package why

import (
	"strings"
	"testing"
)

const zonalSSD = `- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: zonal-ssd}
  provisioner: pd.csi.storage.gke.io
  volumeBindingMode: WaitForFirstConsumer
`

// pv is a PV of zonal-ssd; claimRef is "" or a claimRef's fields.
func pv(name, claimRef string) string {
	return `- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: ` + name + `}
  spec: {capacity: {storage: 10Gi}, accessModes: [ReadWriteOnce], storageClassName: zonal-ssd, csi: {driver: pd.csi.storage.gke.io, volumeHandle: ` + name + `}` + claimRef + `}
`
}

// pvc is a claim of zonal-ssd in default; volumeName may be "".
func pvc(name, volumeName string) string {
	return `- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: ` + name + `, namespace: default}
  spec: {accessModes: [ReadWriteOnce], storageClassName: zonal-ssd, volumeName: '` + volumeName + `', resources: {requests: {storage: 10Gi}}}
`
}

func withClaim(claim string) string {
	return pod("p", "100m", "", "", "    volumes: [{name: data, persistentVolumeClaim: {claimName: "+claim+"}}]\n")
}

// TestVerdictClaimsStoppingThePod: a pre-bound claim and a missing claim
// are the pod's problem, said once (not as N node failures) with what to
// do; the "not found" DynamicResources' PostFilter appends to the message
// is explained.
func TestVerdictClaimsStoppingThePod(t *testing.T) {
	nodes := node("node-a", "4", "", "", "") + node("node-b", "4", "", "", "")
	const tail = `The message's trailing "not found" is DynamicResources' PostFilter: PreFilter stopped at %s before DynamicResources' PreFilter ran`
	cases := []struct {
		name, yaml string
		want       []string
	}{{
		name: "pre-bound to an available PV",
		yaml: zonalSSD + pv("pv-reports", "") + pvc("reports", "pv-reports") + nodes + withClaim("reports"),
		want: []string{
			"Stuck: PreFilter VolumeBinding rejected the pod itself, before any node was considered.",
			"• pod has unbound immediate PersistentVolumeClaims (VolumeBinding): claim default/reports names PV pv-reports (spec.volumeName) but lacks the pv.kubernetes.io/bind-completed annotation: upstream treats it as pre-bound, not bound",
			"and waits for the PV controller to complete the binding (the pod is retried when the claim is updated)",
			`annotate the claim pv.kubernetes.io/bind-completed: "yes" as the controller would.`,
			strings.Replace(tail, "%s", "VolumeBinding", 1),
		},
	}, {
		name: "pre-bound to a missing PV",
		yaml: zonalSSD + pvc("reports", "pv-gone") + nodes + withClaim("reports"),
		want: []string{"which it never will: PV pv-gone does not exist (create it, or clear the claim's spec.volumeName)."},
	}, {
		name: "pre-bound to a PV bound elsewhere",
		yaml: zonalSSD + pv("pv-reports", ", claimRef: {namespace: default, name: other}") + pvc("reports", "pv-reports") + nodes + withClaim("reports"),
		want: []string{"which it never will: PV pv-reports is bound to claim default/other (point the claim at another PV)."},
	}, {
		name: "missing",
		yaml: nodes + withClaim("does-not-exist"),
		want: []string{
			"Stuck: PreFilter VolumeRestrictions rejected the pod itself, before any node was considered.",
			`• persistentvolumeclaim "does-not-exist" not found (VolumeRestrictions): claim default/does-not-exist (volume data) does not exist: create it, or correct the volume's claimName.`,
			strings.Replace(tail, "%s", "VolumeRestrictions", 1),
		},
	}, {
		name: "generic ephemeral, not created yet",
		yaml: zonalSSD + nodes + pod("p", "100m", "", "", "    volumes: [{name: scratch, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], storageClassName: zonal-ssd, resources: {requests: {storage: 1Gi}}}}}}]\n"),
		want: []string{"claim default/p-scratch of generic ephemeral volume scratch does not exist yet: the ephemeral volume controller (kube-controller-manager) creates it"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := stuck(t, run(t, header+c.yaml), "default/p")
			v := strings.Join(Verdict(in), "\n")
			for _, w := range c.want {
				if !strings.Contains(v, w) {
					t.Errorf("verdict lacks %q:\n%s", w, v)
				}
			}
			if strings.Contains(v, " × ") || strings.Contains(v, "bound to PV") {
				t.Errorf("the pod's problem is told as node failures, or a pre-bound claim as bound:\n%s", v)
			}
		})
	}
}
