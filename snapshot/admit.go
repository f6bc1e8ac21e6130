package snapshot

import (
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// The loader's admission step: what the API server's admission plugins do
// to new pods and claims (package apiserver), with every finding reported
// at the object's origin.

func (l *Loader) admitPods() {
	classes := l.cluster.PriorityClasses
	runtimeClasses := map[string]*nodev1.RuntimeClass{}
	for _, rc := range l.cluster.RuntimeClasses {
		runtimeClasses[rc.Name] = rc
	}
	kept := l.cluster.Pods[:0]
	for _, pod := range l.cluster.Pods {
		if l.admitPod(pod, classes, runtimeClasses) {
			kept = append(kept, pod)
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
	at := l.origins[pod]
	desc := describe("Pod", pod.Namespace, pod.Name)
	msgName := pod.Name
	if l.generated[pod] {
		msgName = ""
	}
	warnings, rejection := apiserver.AdmitPod(pod, msgName, classes, runtimeClasses)
	for _, w := range warnings {
		l.report.Warnf(at.file, at.line, desc, w.Field, "%s", w.Message)
	}
	if rejection != nil {
		l.report.Errorf(at.file, at.line, desc, rejection.Field, "%s", rejection.Message)
		return false
	}
	return true
}

func (l *Loader) admitPersistentVolumeClaims() {
	def := apiserver.DefaultStorageClass(l.cluster.StorageClasses)
	for _, pvc := range l.cluster.PersistentVolumeClaims {
		apiserver.AdmitPersistentVolumeClaim(pvc, def)
	}
}
