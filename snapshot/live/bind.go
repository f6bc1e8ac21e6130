package live

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Binder returns the function DefaultBinder calls under --bind: it POSTs
// the pod's Binding as kube-scheduler's DefaultBinder does (the pod's UID
// in the binding, so a pod deleted and recreated under the same name is
// not bound by mistake). The client must have been connected with
// Options.Bind, or the read-only transport refuses the request.
func Binder(client kubernetes.Interface) func(ctx context.Context, pod *v1.Pod, node string) error {
	return func(ctx context.Context, pod *v1.Pod, node string) error {
		b := &v1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
			Target:     v1.ObjectReference{Kind: "Node", Name: node},
		}
		if err := client.CoreV1().Pods(pod.Namespace).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("binding %s/%s to %s: %w", pod.Namespace, pod.Name, node, err)
		}
		return nil
	}
}
