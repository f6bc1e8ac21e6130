package scenario

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/snapshot"
)

// list is a v1 List; Items are pre-encoded objects.
type list struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   map[string]string `json:"metadata"`
	Items      []json.RawMessage `json:"items"`
}

// Objects returns every object of c with apiVersion and kind set, in the
// order Dump writes them: cluster-scoped configuration first, then nodes and
// storage, workload controllers, PDBs and finally pods in Cluster order. The
// objects are deep copies.
func Objects(c *snapshot.Cluster) []runtime.Object {
	var out []runtime.Object
	add := func(o runtime.Object, gv schema.GroupVersion, kind string) {
		o = o.DeepCopyObject()
		o.GetObjectKind().SetGroupVersionKind(gv.WithKind(kind))
		out = append(out, o)
	}
	core := v1.SchemeGroupVersion
	for _, o := range c.Namespaces {
		add(o, core, "Namespace")
	}
	for _, o := range c.PriorityClasses {
		add(o, schedulingv1.SchemeGroupVersion, "PriorityClass")
	}
	for _, o := range c.RuntimeClasses {
		add(o, nodev1.SchemeGroupVersion, "RuntimeClass")
	}
	for _, o := range c.StorageClasses {
		add(o, storagev1.SchemeGroupVersion, "StorageClass")
	}
	for _, o := range c.CSIDrivers {
		add(o, storagev1.SchemeGroupVersion, "CSIDriver")
	}
	for _, o := range c.Nodes {
		add(o, core, "Node")
	}
	for _, o := range c.CSINodes {
		add(o, storagev1.SchemeGroupVersion, "CSINode")
	}
	for _, o := range c.PersistentVolumes {
		add(o, core, "PersistentVolume")
	}
	for _, o := range c.PersistentVolumeClaims {
		add(o, core, "PersistentVolumeClaim")
	}
	for _, o := range c.CSIStorageCapacities {
		add(o, storagev1.SchemeGroupVersion, "CSIStorageCapacity")
	}
	for _, o := range c.VolumeAttachments {
		add(o, storagev1.SchemeGroupVersion, "VolumeAttachment")
	}
	for _, o := range c.Services {
		add(o, core, "Service")
	}
	for _, o := range c.ReplicationControllers {
		add(o, core, "ReplicationController")
	}
	for _, o := range c.ReplicaSets {
		add(o, appsv1.SchemeGroupVersion, "ReplicaSet")
	}
	for _, o := range c.StatefulSets {
		add(o, appsv1.SchemeGroupVersion, "StatefulSet")
	}
	for _, o := range c.DaemonSets {
		add(o, appsv1.SchemeGroupVersion, "DaemonSet")
	}
	for _, o := range c.PodDisruptionBudgets {
		add(o, policyv1.SchemeGroupVersion, "PodDisruptionBudget")
	}
	for _, o := range c.Pods {
		add(o, core, "Pod")
	}
	return out
}

// Dump writes s as one YAML document: a v1 List whose items carry
// apiVersion and kind, loadable with `schedtui run --snapshot`. A comment
// header names the scenario, its seed and features.
func Dump(w io.Writer, s *Scenario) error {
	l := list{APIVersion: "v1", Kind: "List", Metadata: map[string]string{}, Items: []json.RawMessage{}}
	for _, o := range Objects(s.Cluster) {
		raw, err := json.Marshal(o)
		if err != nil {
			return fmt.Errorf("scenario %s: encoding %s: %w", s.Name, o.GetObjectKind().GroupVersionKind().Kind, err)
		}
		l.Items = append(l.Items, raw)
	}
	body, err := yaml.Marshal(l)
	if err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	header := fmt.Sprintf("# scenario: %s\n# seed: %d\n", s.Name, s.Seed)
	for _, line := range strings.Split(strings.TrimSpace(s.Doc), "\n") {
		if line != "" {
			header += "# " + strings.TrimSpace(line) + "\n"
		}
	}
	for _, f := range s.Features {
		header += "# feature: " + f + "\n"
	}
	if _, err := io.WriteString(w, header); err != nil {
		return err
	}
	_, err = w.Write(body)
	return err
}
