package apiserver

// Mutating/validating admission the API server applies to new pods and
// claims, written from k8s.io/kubernetes v1.37.1:
//   plugin/pkg/admission/priority                 (Priority)
//   plugin/pkg/admission/defaulttolerationseconds (DefaultTolerationSeconds)
//   plugin/pkg/admission/runtimeclass             (RuntimeClass)
//   plugin/pkg/admission/storage/storageclass/setdefault (DefaultStorageClass)
// in the API server's plugin order (Priority, DefaultTolerationSeconds,
// DefaultStorageClass, RuntimeClass).
//
// Objects read back from an API server (metadata.resourceVersion set) went
// through admission when they were created. For them only the priority is
// resolved, and only when spec.priority is missing; when it is present it
// is kept, and a class that no longer exists or has another value now is a
// Warning rather than a rejection, since the pod does exist in the cluster.

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DefaultPriorityClass returns the class the Priority admission plugin
// gives pods without priorityClassName: the globalDefault class with the
// lowest value (there can be several after a race), or nil.
func DefaultPriorityClass(classes []*schedulingv1.PriorityClass) *schedulingv1.PriorityClass {
	var def *schedulingv1.PriorityClass
	for _, pc := range classes {
		if pc != nil && pc.GlobalDefault && (def == nil || def.Value > pc.Value) {
			def = pc
		}
	}
	return def
}

// errPriorityClassNotFound is the admission plugin's error for a missing
// class (it becomes a Forbidden API error).
type errPriorityClassNotFound struct{ name string }

func (e errPriorityClassNotFound) Error() string {
	return fmt.Sprintf("no PriorityClass with name %v was found", e.name)
}

// ResolvePriority returns what the Priority admission plugin computes for a
// pod with the given priorityClassName: the class name to record, the
// priority and the preemption policy.
func ResolvePriority(priorityClassName string, classes []*schedulingv1.PriorityClass) (string, int32, *v1.PreemptionPolicy, error) {
	if priorityClassName == "" {
		if def := DefaultPriorityClass(classes); def != nil {
			return def.Name, def.Value, def.PreemptionPolicy, nil
		}
		return "", DefaultPriorityWhenNoDefaultClassExists, ptrTo(v1.PreemptLowerPriority), nil
	}
	for _, pc := range classes {
		if pc != nil && pc.Name == priorityClassName {
			return priorityClassName, pc.Value, pc.PreemptionPolicy, nil
		}
	}
	return "", 0, nil, errPriorityClassNotFound{priorityClassName}
}

var podsResource = schema.GroupResource{Resource: "pods"}

// forbiddenPod words an admission rejection as the API server prints it:
// `pods "NAME" is forbidden: ...` (no name for generateName pods, whose
// name is generated after admission).
func forbiddenPod(name string, err error) string {
	return apierrors.NewForbidden(podsResource, name, err).Error()
}

// AdmissionIssue is what admission says about one field of an object.
type AdmissionIssue struct {
	Field   string
	Message string
}

// AdmitPod applies the admission plugins that touch scheduling (Priority,
// DefaultTolerationSeconds, RuntimeClass) to one pod, in place. msgName is
// the name rejections are worded with ("" for a generateName pod, whose
// name is generated after admission). A stored pod (read back from an API
// server) keeps its stored priority, with warnings where it disagrees with
// the classes. rejection, when not nil, says why the API server would
// refuse to create the pod.
func AdmitPod(pod *v1.Pod, msgName string, classes []*schedulingv1.PriorityClass, runtimeClasses map[string]*nodev1.RuntimeClass) (warnings []AdmissionIssue, rejection *AdmissionIssue) {
	reject := func(fieldPath string, err error) ([]AdmissionIssue, *AdmissionIssue) {
		return warnings, &AdmissionIssue{Field: fieldPath, Message: forbiddenPod(msgName, err)}
	}
	warn := func(fieldPath, format string, args ...any) {
		warnings = append(warnings, AdmissionIssue{Field: fieldPath, Message: fmt.Sprintf(format, args...)})
	}
	admitted := IsStored(&pod.ObjectMeta) && pod.Spec.Priority != nil

	// Priority.
	name, priority, policy, err := ResolvePriority(pod.Spec.PriorityClassName, classes)
	switch {
	case err != nil && admitted:
		warn("spec.priorityClassName", "%s; keeping the stored priority %d",
			forbiddenPod(msgName, err), *pod.Spec.Priority)
	case err != nil:
		return reject("spec.priorityClassName", err)
	default:
		if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
			err := fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, priority)
			if !admitted {
				return reject("spec.priority", err)
			}
			warn("spec.priority", "%s; keeping the stored priority", forbiddenPod(msgName, err))
		} else if !admitted {
			pod.Spec.PriorityClassName = name
			pod.Spec.Priority = ptrTo(priority)
		}
		if policy != nil {
			if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != *policy {
				err := fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, *policy)
				if !admitted {
					return reject("spec.preemptionPolicy", err)
				}
				warn("spec.preemptionPolicy", "%s; keeping the stored policy", forbiddenPod(msgName, err))
			} else if pod.Spec.PreemptionPolicy == nil {
				pod.Spec.PreemptionPolicy = ptrTo(*policy)
			}
		}
	}
	if IsStored(&pod.ObjectMeta) {
		return warnings, nil
	}

	// DefaultTolerationSeconds.
	addDefaultTolerations(pod)

	// RuntimeClass (mutating, then validating).
	var rc *nodev1.RuntimeClass
	if pod.Spec.RuntimeClassName != nil {
		rc = runtimeClasses[*pod.Spec.RuntimeClassName]
		if rc == nil {
			return reject("spec.runtimeClassName", fmt.Errorf("pod rejected: RuntimeClass %q not found", *pod.Spec.RuntimeClassName))
		}
	}
	if rc != nil && rc.Overhead != nil {
		if len(pod.Spec.Overhead) > 0 && !apiequality.Semantic.DeepEqual(rc.Overhead.PodFixed, pod.Spec.Overhead) {
			return reject("spec.overhead", fmt.Errorf("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"))
		}
		pod.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
		roundResourceList(pod.Spec.Overhead)
	}
	if rc != nil && rc.Scheduling != nil {
		if pod.Spec.NodeSelector == nil {
			pod.Spec.NodeSelector = copyStringMapOrNil(rc.Scheduling.NodeSelector)
		} else {
			keys := make([]string, 0, len(rc.Scheduling.NodeSelector))
			for k := range rc.Scheduling.NodeSelector {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				rcValue := rc.Scheduling.NodeSelector[k]
				if podValue, ok := pod.Spec.NodeSelector[k]; ok && podValue != rcValue {
					return reject("spec.nodeSelector", fmt.Errorf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, rcValue, k, podValue))
				}
				pod.Spec.NodeSelector[k] = rcValue
			}
		}
		pod.Spec.Tolerations = MergeTolerations(pod.Spec.Tolerations, rc.Scheduling.Tolerations)
	}
	if (rc == nil || rc.Overhead == nil) && pod.Spec.Overhead != nil {
		return reject("spec.overhead", fmt.Errorf("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"))
	}
	return warnings, nil
}

func copyStringMapOrNil(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	return copyStringMap(m)
}

// addDefaultTolerations adds the not-ready and unreachable NoExecute
// tolerations (300 s) unless the pod already tolerates those taints.
func addDefaultTolerations(pod *v1.Pod) {
	notReady, unreachable := false, false
	for _, t := range pod.Spec.Tolerations {
		noExec := t.Effect == v1.TaintEffectNoExecute || t.Effect == ""
		if (t.Key == v1.TaintNodeNotReady || t.Key == "") && noExec {
			notReady = true
		}
		if (t.Key == v1.TaintNodeUnreachable || t.Key == "") && noExec {
			unreachable = true
		}
	}
	if !notReady {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, v1.Toleration{
			Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptrTo[int64](300)})
	}
	if !unreachable {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, v1.Toleration{
			Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptrTo[int64](300)})
	}
}

// MergeTolerations merges two toleration lists, dropping tolerations that
// another one already covers (pkg/util/tolerations.MergeTolerations).
func MergeTolerations(first, second []v1.Toleration) []v1.Toleration {
	all := append(append([]v1.Toleration{}, first...), second...)
	var merged []v1.Toleration
next:
	for i, t := range all {
		for _, t2 := range merged {
			if tolerationIsSuperset(t2, t) {
				continue next
			}
		}
		for _, t2 := range all[i+1:] {
			if !apiequality.Semantic.DeepEqual(&t, &t2) && tolerationIsSuperset(t2, t) {
				continue next
			}
		}
		merged = append(merged, t)
	}
	return merged
}

// tolerationIsSuperset reports whether ss tolerates everything t does.
func tolerationIsSuperset(ss, t v1.Toleration) bool {
	if apiequality.Semantic.DeepEqual(&t, &ss) {
		return true
	}
	if t.Key != ss.Key && (ss.Key != "" || ss.Operator != v1.TolerationOpExists) {
		return false
	}
	if t.Effect != ss.Effect && ss.Effect != "" {
		return false
	}
	if ss.Effect == v1.TaintEffectNoExecute && ss.TolerationSeconds != nil {
		if t.TolerationSeconds == nil || *t.TolerationSeconds > *ss.TolerationSeconds {
			return false
		}
	}
	switch ss.Operator {
	case v1.TolerationOpEqual, "":
		return t.Operator == v1.TolerationOpEqual && t.Value == ss.Value
	case v1.TolerationOpExists:
		return true
	default:
		return false
	}
}

// Default storage class annotations (pkg/volume/util/storageclass.go).
const (
	IsDefaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	BetaIsDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
	betaStorageClassAnnotation          = "volume.beta.kubernetes.io/storage-class"
)

// DefaultStorageClass returns the class DefaultStorageClass admission
// assigns to claims without one: among classes annotated as default, the
// newest (then the first by name), or nil.
func DefaultStorageClass(classes []*storagev1.StorageClass) *storagev1.StorageClass {
	var defaults []*storagev1.StorageClass
	for _, sc := range classes {
		if sc != nil && (sc.Annotations[IsDefaultStorageClassAnnotation] == "true" || sc.Annotations[BetaIsDefaultStorageClassAnnotation] == "true") {
			defaults = append(defaults, sc)
		}
	}
	if len(defaults) == 0 {
		return nil
	}
	sort.SliceStable(defaults, func(i, j int) bool {
		ti, tj := defaults[i].CreationTimestamp.UnixNano(), defaults[j].CreationTimestamp.UnixNano()
		if ti == tj {
			return defaults[i].Name < defaults[j].Name
		}
		return ti > tj
	})
	return defaults[0]
}

// AdmitPersistentVolumeClaim applies DefaultStorageClass admission: a new
// claim without a class, and without the beta class annotation, gets the
// default class def (when there is one).
func AdmitPersistentVolumeClaim(pvc *v1.PersistentVolumeClaim, def *storagev1.StorageClass) {
	if def == nil || IsStored(&pvc.ObjectMeta) || pvc.Spec.StorageClassName != nil {
		return
	}
	if _, ok := pvc.Annotations[betaStorageClassAnnotation]; ok {
		return
	}
	pvc.Spec.StorageClassName = ptrTo(def.Name)
}
