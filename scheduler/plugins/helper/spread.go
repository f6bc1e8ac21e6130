package helper

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/schedtui/schedtui/scheduler/framework"
)

var (
	rcKind = v1.SchemeGroupVersion.WithKind("ReplicationController")
	rsKind = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	ssKind = appsv1.SchemeGroupVersion.WithKind("StatefulSet")
)

// DefaultSelector deduces a selector for pod from the Services selecting it
// and from the ReplicationController, ReplicaSet or StatefulSet controlling
// it, as upstream's helper.DefaultSelector does. It is how default spread
// constraints decide which pods are "the same workload". The result is
// empty when nothing selects or controls the pod.
func DefaultSelector(pod *v1.Pod, objs framework.ObjectLister) labels.Selector {
	labelSet := make(labels.Set)
	if objs == nil {
		return labelSet.AsSelector()
	}
	// Every service here selects the pod, so their selectors agree with the
	// pod's labels and merging them cannot conflict.
	for _, svc := range GetPodServices(objs, pod) {
		labelSet = labels.Merge(labelSet, svc.Spec.Selector)
	}
	selector := labelSet.AsSelector()

	owner := metav1.GetControllerOfNoCopy(pod)
	if owner == nil {
		return selector
	}
	gv, err := schema.ParseGroupVersion(owner.APIVersion)
	if err != nil {
		return selector
	}
	switch gv.WithKind(owner.Kind) {
	case rcKind:
		if rc := findReplicationController(objs, pod.Namespace, owner.Name); rc != nil {
			labelSet = labels.Merge(labelSet, rc.Spec.Selector)
			selector = labelSet.AsSelector()
		}
	case rsKind:
		if rs := findReplicaSet(objs, pod.Namespace, owner.Name); rs != nil {
			selector = addRequirements(selector, rs.Spec.Selector)
		}
	case ssKind:
		if ss := findStatefulSet(objs, pod.Namespace, owner.Name); ss != nil {
			selector = addRequirements(selector, ss.Spec.Selector)
		}
	}
	return selector
}

// addRequirements ANDs a controller's selector into sel. A nil selector
// converts to Nothing, which has no requirements and so adds nothing; an
// unparsable one is ignored, as upstream ignores it.
func addRequirements(sel labels.Selector, ls *metav1.LabelSelector) labels.Selector {
	other, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return sel
	}
	if r, ok := other.Requirements(); ok {
		return sel.Add(r...)
	}
	return sel
}

// GetPodServices returns the services in the pod's namespace whose selector
// matches the pod's labels. Services without a selector match nothing.
// As with client-go's listers, an empty namespace lists every namespace.
func GetPodServices(objs framework.ObjectLister, pod *v1.Pod) []*v1.Service {
	var services []*v1.Service
	for _, svc := range objs.Services(pod.Namespace) {
		if svc.Spec.Selector == nil {
			continue
		}
		if labels.Set(svc.Spec.Selector).AsSelectorPreValidated().Matches(labels.Set(pod.Labels)) {
			services = append(services, svc)
		}
	}
	return services
}

// The finders look an owner up by namespace/name. Upstream's namespaced
// lister Get builds the key "<ns>/<name>", which never matches anything
// when the pod has no namespace; an empty namespace therefore finds nothing.

func findReplicationController(objs framework.ObjectLister, ns, name string) *v1.ReplicationController {
	if ns == "" {
		return nil
	}
	for _, o := range objs.ReplicationControllers(ns) {
		if o.Namespace == ns && o.Name == name {
			return o
		}
	}
	return nil
}

func findReplicaSet(objs framework.ObjectLister, ns, name string) *appsv1.ReplicaSet {
	if ns == "" {
		return nil
	}
	for _, o := range objs.ReplicaSets(ns) {
		if o.Namespace == ns && o.Name == name {
			return o
		}
	}
	return nil
}

func findStatefulSet(objs framework.ObjectLister, ns, name string) *appsv1.StatefulSet {
	if ns == "" {
		return nil
	}
	for _, o := range objs.StatefulSets(ns) {
		if o.Namespace == ns && o.Name == name {
			return o
		}
	}
	return nil
}
