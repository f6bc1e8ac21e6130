package snapshot

// Step 4 of reading a snapshot: what the API server does to each object
// (package apiserver): its namespace, defaulting, create-time mutations
// and validation as it is added, and, once every object is in (Finish),
// the admission plugins that touch pods and claims. Every finding is
// reported at the object's origin; accepted objects go into the cluster
// (loader.go).

import (
	"reflect"
	"slices"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

func (l *Loader) admitPods() {
	classes := l.cluster.PriorityClasses
	runtimeClasses := map[string]*nodev1.RuntimeClass{}
	for _, rc := range l.cluster.RuntimeClasses {
		runtimeClasses[rc.Name] = rc
	}
	kept := l.cluster.Pods[:0]
	// Admission gives most pods the same two default tolerations, each
	// pod its own copy: a pod shares the list of the pod before when they
	// are equal (as share.go shares what the pods are read with).
	var tolerations []v1.Toleration
	for _, pod := range l.cluster.Pods {
		if l.admitPod(pod, classes, runtimeClasses) {
			kept = append(kept, pod)
			if len(pod.Spec.Tolerations) > 0 && reflect.DeepEqual(pod.Spec.Tolerations, tolerations) {
				pod.Spec.Tolerations = tolerations
			} else {
				tolerations = slices.Clip(pod.Spec.Tolerations)
				pod.Spec.Tolerations = tolerations
			}
		}
	}
	for i := len(kept); i < len(l.cluster.Pods); i++ {
		l.cluster.Pods[i] = nil
	}
	l.cluster.Pods = kept
}

// admitPod applies admission to one pod; false means it is rejected (and
// reported).
func (l *Loader) admitPod(pod *v1.Pod, classes []*schedulingv1.PriorityClass, runtimeClasses map[string]*nodev1.RuntimeClass) bool {
	msgName := pod.Name
	if l.generated[pod] {
		msgName = ""
	}
	warnings, rejection := apiserver.AdmitPod(pod, msgName, classes, runtimeClasses)
	if len(warnings) == 0 && rejection == nil {
		// Most pods: where the pod comes from is looked up for a
		// problem only (a fifth of a second at 300,000 pods, after the
		// last item is decoded).
		return true
	}
	at := l.originOf(pod)
	defer l.reportingAt(at)()
	return l.reportAdmission(at, describe("Pod", pod.Namespace, pod.Name), warnings, rejection)
}

// reportAdmission reports what admission said about the object desc, at
// its origin; false means it is rejected.
func (l *Loader) reportAdmission(at origin, desc string, warnings []apiserver.AdmissionIssue, rejection *apiserver.AdmissionIssue) bool {
	for _, w := range warnings {
		l.report.Warnf(at.file, at.line, desc, w.Field, "%s", w.Message)
	}
	if rejection != nil {
		l.report.Errorf(at.file, at.line, desc, rejection.Field, "%s", rejection.Message)
		return false
	}
	return true
}

// admitPodGroups applies the Priority admission plugin to the PodGroups
// and CompositePodGroups (under the API server's gates: GenericWorkload,
// CompositePodGroup), dropping those it rejects.
func (l *Loader) admitPodGroups() {
	l.cluster.PodGroups = admitGroups(l, "PodGroup", l.cluster.PodGroups)
	l.cluster.CompositePodGroups = admitGroups(l, "CompositePodGroup", l.cluster.CompositePodGroups)
}

// admitGroups admits each group of one kind, keeping those admission
// accepts.
func admitGroups[T interface {
	runtime.Object
	metav1.Object
}](l *Loader, kind string, groups []T) []T {
	kept := groups[:0]
	for _, g := range groups {
		at := l.originOf(g)
		done := l.reportingAt(at)
		warnings, rejection := apiserver.AdmitGroup(g, l.cluster.PriorityClasses, l.validation)
		if l.reportAdmission(at, describe(kind, g.GetNamespace(), g.GetName()), warnings, rejection) {
			kept = append(kept, g)
		}
		done()
	}
	clear(groups[len(kept):])
	return kept
}

func (l *Loader) admitPersistentVolumeClaims() {
	def := apiserver.DefaultStorageClass(l.cluster.StorageClasses)
	for _, pvc := range l.cluster.PersistentVolumeClaims {
		apiserver.AdmitPersistentVolumeClaim(pvc, def)
	}
}

// checkedObject is what adding an object works out from the object
// alone: its metadata, the namespace it had if it is cluster-scoped (now
// cleared), and its validation errors once defaulted. checkObject computes
// it, on the goroutines that decode a List's items ahead when it can.
type checkedObject struct {
	acc              metav1.Object
	clearedNamespace string
	errs             field.ErrorList
	// dropped are the fields the API server drops from the object for a
	// gate that is off (apiserver.DropDisabledFields).
	dropped []apiserver.DroppedField
}

// checkAhead is checkObject for an object decoded ahead of adding it, or
// nil when the object needs the loader first: one without metadata, or
// whose name the loader generates (metadata.generateName).
func checkAhead(ki *kindInfo, obj runtime.Object, opts apiserver.ValidationOptions, share *sharedParts, found *foundParts) *checkedObject {
	acc, err := meta.Accessor(obj)
	if err != nil || acc.GetName() == "" && acc.GetGenerateName() != "" {
		return nil
	}
	return checkObject(ki, obj, acc, opts, share, found)
}

// checkObject normalizes the namespace, defaults, prepares a pod as the
// API server creates it, and validates. It touches nothing but obj.
func checkObject(ki *kindInfo, obj runtime.Object, acc metav1.Object, opts apiserver.ValidationOptions, share *sharedParts, found *foundParts) *checkedObject {
	c := &checkedObject{acc: acc, clearedNamespace: normalizeNamespace(ki, acc)}
	c.errs, c.dropped = defaultAndValidate(ki, obj, acc, opts, share, found)
	return c
}

// normalizeNamespace does what the API server does with an object's
// namespace: it takes it from the request (kubectl: the context's
// namespace, "default") and clears it on cluster-scoped kinds. It returns
// the namespace it cleared.
func normalizeNamespace(ki *kindInfo, acc metav1.Object) (cleared string) {
	if ki.namespaced {
		if acc.GetNamespace() == "" {
			acc.SetNamespace(metav1.NamespaceDefault)
		}
	} else if acc.GetNamespace() != "" {
		cleared = acc.GetNamespace()
		acc.SetNamespace("")
	}
	return cleared
}

// defaultAndValidate defaults obj, prepares a pod as the API server
// creates it, and returns the validation errors under opts. A valid pod or
// node then shares its parts with those share met before (share.go). A
// pod or node decoded from protobuf without the parts found by their bytes
// (found, share_protobuf.go, share_protobuf_nodes.go) gets them once
// defaulted: they are in defaulted form already, and read by what follows.
func defaultAndValidate(ki *kindInfo, obj runtime.Object, acc metav1.Object, opts apiserver.ValidationOptions, share *sharedParts, found *foundParts) (field.ErrorList, []apiserver.DroppedField) {
	apiserver.DefaultUnder(obj, opts)
	if node, ok := obj.(*v1.Node); ok {
		found.settleNode(node)
	}
	if pod, ok := obj.(*v1.Pod); ok {
		found.settle(pod)
		if !apiserver.IsStored(&pod.ObjectMeta) {
			apiserver.PrepareForCreate(pod)
		}
	}
	dropped := apiserver.DropDisabledFields(obj, opts)
	errs := apiserver.ValidateObjectMeta(acc, ki.namespaced, ki.nameFn)
	errs = append(errs, apiserver.Validate(obj, opts)...)
	if len(errs) == 0 && share != nil {
		shareObject(share, obj, found.handled())
	}
	return errs, dropped
}

// ValidateUnder makes the loader default, validate and create the objects
// it adds as an API server with the gates gates does (the v1.37 defaults
// until then): with TaintTolerationComparisonOperators, tolerations may
// use Lt and Gt; without GenericWorkload a new pod (or a new workload's
// pod template) loses spec.schedulingGroup; a new PodGroup, Workload or
// CompositePodGroup loses the fields of the workload gates that are off
// (see apiserver.ValidationOptions). An object read back from an API server
// keeps what a gate allowed it whatever the gates (see apiserver.Validate).
// Call it before adding.
func (l *Loader) ValidateUnder(gates features.Features) {
	l.validation = ValidationUnder(gates)
}

// ValidationUnder is what of gates an API server's validation reads
// (gates that differ only elsewhere validate alike).
func ValidationUnder(gates features.Features) apiserver.ValidationOptions {
	return apiserver.ValidationOptions{
		AllowTaintTolerationComparisonOperators: gates.EnableTaintTolerationComparisonOperators,
		GenericWorkload:                         gates.EnableGenericWorkload,
		TopologyAwareWorkloadScheduling:         gates.EnableTopologyAwareWorkloadScheduling,
		CompositePodGroup:                       gates.EnableCompositePodGroup,
		PodGroupPreemptionPolicy:                gates.EnablePodGroupPreemptionPolicy,
		DRAWorkloadResourceClaims:               gates.EnableDRAWorkloadResourceClaims,
	}
}

// warnClearedNamespace reports the namespace normalizeNamespace cleared,
// if any.
func (l *Loader) warnClearedNamespace(ki *kindInfo, acc metav1.Object, cleared string, at origin) {
	if cleared != "" {
		l.report.Warnf(at.file, at.line, describe(ki.kind, cleared, acc.GetName()), "metadata.namespace",
			"%s is cluster-scoped; namespace %q ignored", ki.kind, cleared)
	}
}
