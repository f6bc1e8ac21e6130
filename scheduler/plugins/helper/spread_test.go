package helper

import (
	"fmt"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func store(objs ...any) *framework.ObjectStore {
	s := framework.NewObjectStore()
	for _, o := range objs {
		s.Add(o)
	}
	return s
}

func spreadPod(ns string, lbls map[string]string, owner *schema.GroupVersionKind, ownerName string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test-pod", Namespace: ns, Labels: lbls}}
	if owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: owner.GroupVersion().String(), Kind: owner.Kind, Name: ownerName, Controller: func() *bool { b := true; return &b }(),
		}}
	}
	return p
}

func TestGetPodServices(t *testing.T) {
	var objs []any
	var services []*v1.Service
	for i := 0; i < 3; i++ {
		svc := &v1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("service-%d", i), Namespace: "test"},
			Spec:       v1.ServiceSpec{Selector: map[string]string{"app": fmt.Sprintf("test-%d", i)}},
		}
		services = append(services, svc)
		objs = append(objs, svc)
	}
	objs = append(objs,
		// A service without a selector matches nothing.
		&v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "headless", Namespace: "test"}},
		// Another namespace's service doesn't select the pod.
		&v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "other"}, Spec: v1.ServiceSpec{Selector: map[string]string{"app": "test-0"}}},
	)
	s := store(objs...)
	for i := 0; i < 5; i++ {
		pod := spreadPod("test", map[string]string{"app": fmt.Sprintf("test-%d", i), "label": fmt.Sprintf("label-%d", i)}, nil, "")
		var want []*v1.Service
		if i < 3 {
			want = []*v1.Service{services[i]}
		}
		if got := GetPodServices(s, pod); !reflect.DeepEqual(got, want) {
			t.Errorf("pod %d: got %v, want %v", i, got, want)
		}
	}
}

func TestDefaultSelector(t *testing.T) {
	const ns = "test"
	svc := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "test-service", Namespace: ns},
		Spec:       v1.ServiceSpec{Selector: map[string]string{"podLabelKey": "podLabelVal"}},
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "test-replicaset", Namespace: ns},
		Spec:       appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"replicaSetLabelKey": "replicaSetLabelVal"}}},
	}
	rc := &v1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: "test-replicationcontroller", Namespace: ns},
		Spec:       v1.ReplicationControllerSpec{Selector: map[string]string{"replicationLabelKey": "replicationLabelVal"}},
	}
	ss := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "test-statefulset", Namespace: ns},
		Spec:       appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"statefulSetLabelKey": "statefulSetLabelVal"}}},
	}
	rsNilSel := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "nil-sel", Namespace: ns}}
	rsExpr := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "expr", Namespace: ns},
		Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "api"}}}}},
	}
	rsKind := appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	rcKind := v1.SchemeGroupVersion.WithKind("ReplicationController")
	ssKind := appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	deployKind := appsv1.SchemeGroupVersion.WithKind("Deployment")
	podLabels := map[string]string{"podLabelKey": "podLabelVal"}

	tests := []struct {
		name string
		pod  *v1.Pod
		objs []any
		want string // the selector's String()
	}{
		{name: "DefaultSelector for default case", pod: spreadPod(ns, podLabels, nil, ""), want: ""},
		{name: "DefaultSelector for no OwnerReference pod case", pod: spreadPod(ns, podLabels, nil, ""), objs: []any{svc},
			want: labels.Set{"podLabelKey": "podLabelVal"}.String()},
		{name: "DefaultSelector for ReplicaSet OwnerReference pod case", pod: spreadPod(ns, podLabels, &rsKind, rs.Name), objs: []any{svc, rs},
			want: labels.Set{"podLabelKey": "podLabelVal", "replicaSetLabelKey": "replicaSetLabelVal"}.String()},
		{name: "DefaultSelector for ReplicationController OwnerReference pod case", pod: spreadPod(ns, podLabels, &rcKind, rc.Name), objs: []any{svc, rc},
			want: labels.Set{"podLabelKey": "podLabelVal", "replicationLabelKey": "replicationLabelVal"}.String()},
		{name: "DefaultSelector for StatefulSet OwnerReference pod case", pod: spreadPod(ns, podLabels, &ssKind, ss.Name), objs: []any{svc, ss},
			want: labels.Set{"podLabelKey": "podLabelVal", "statefulSetLabelKey": "statefulSetLabelVal"}.String()},
		{name: "owner without service", pod: spreadPod(ns, podLabels, &rsKind, rs.Name), objs: []any{rs},
			want: "replicaSetLabelKey=replicaSetLabelVal"},
		{name: "owner's expressions are kept", pod: spreadPod(ns, podLabels, &rsKind, rsExpr.Name), objs: []any{rsExpr},
			want: "tier in (api,web)"},
		{name: "owner with nil selector adds nothing", pod: spreadPod(ns, podLabels, &rsKind, rsNilSel.Name), objs: []any{svc, rsNilSel},
			want: "podLabelKey=podLabelVal"},
		{name: "missing owner is ignored", pod: spreadPod(ns, podLabels, &rsKind, "gone"), objs: []any{svc},
			want: "podLabelKey=podLabelVal"},
		{name: "unsupported owner kind is ignored", pod: spreadPod(ns, podLabels, &deployKind, rs.Name), objs: []any{svc, rs},
			want: "podLabelKey=podLabelVal"},
		{name: "owner of the same name in another namespace is not the owner", pod: spreadPod("other", podLabels, &rsKind, rs.Name), objs: []any{rs},
			want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DefaultSelector(tt.pod, store(tt.objs...))
			if got.String() != tt.want {
				t.Errorf("selector = %q, want %q", got.String(), tt.want)
			}
			if got.Empty() != (tt.want == "") {
				t.Errorf("Empty() = %v for %q", got.Empty(), tt.want)
			}
		})
	}
}

func TestDefaultSelectorWithoutObjects(t *testing.T) {
	if s := DefaultSelector(spreadPod("ns", map[string]string{"a": "b"}, nil, ""), nil); !s.Empty() {
		t.Errorf("selector = %q, want empty", s.String())
	}
}

func TestDefaultSelectorOwnerNeedsNamespace(t *testing.T) {
	// client-go's namespaced Get looks up "<ns>/<name>": a pod without a
	// namespace never finds its owner.
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs"},
		Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}}}
	kind := appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	if s := DefaultSelector(spreadPod("", nil, &kind, "rs"), store(rs)); !s.Empty() {
		t.Errorf("selector = %q, want empty", s.String())
	}
}
