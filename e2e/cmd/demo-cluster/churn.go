package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// churnShapes are the requests of the pods churn creates: from a sliver
// to half of a demo node, so that some fit anywhere, some only where room
// is left, and some nowhere once the cluster fills.
var churnShapes = []struct{ cpu, memory string }{
	{"100m", "128Mi"}, {"250m", "256Mi"}, {"500m", "512Mi"}, {"1", "1Gi"}, {"2", "4Gi"},
}

// churn creates and deletes pods in namespace default, one action a tick:
// at most max of its pods exist at once, and the actions (which, which
// shape, which pod to delete) follow from the seed alone, so that a run
// is repeatable.
type churn struct {
	client kubernetes.Interface
	rng    *rand.Rand
	max    int
	out    io.Writer

	seq   int
	alive []string // its pods, oldest first
}

func newChurn(client kubernetes.Interface, seed uint64, max int, out io.Writer) *churn {
	return &churn{client: client, rng: rand.New(rand.NewPCG(seed, seed)), max: max, out: out}
}

// run acts every interval until ctx ends.
func (c *churn) run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.step(ctx)
		}
	}
}

// step creates a pod two times in three while fewer than max exist (and
// always when none does), else deletes one of them at random, at once (no
// kubelet would confirm a graceful deletion).
func (c *churn) step(ctx context.Context) {
	if len(c.alive) == 0 || (len(c.alive) < c.max && c.rng.IntN(3) < 2) {
		c.seq++
		shape := churnShapes[c.rng.IntN(len(churnShapes))]
		name := fmt.Sprintf("churn-%d", c.seq)
		p := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: name, Labels: map[string]string{"app": "churn"}},
			Spec: v1.PodSpec{Containers: []v1.Container{{
				Name: "main", Image: "registry.k8s.io/pause:3.10",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
					v1.ResourceCPU: resource.MustParse(shape.cpu), v1.ResourceMemory: resource.MustParse(shape.memory),
				}},
			}}},
		}
		if _, err := c.client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(c.out, "churn: creating default/%s: %v\n", name, err)
			}
			return
		}
		c.alive = append(c.alive, name)
		fmt.Fprintf(c.out, "churn: created default/%s (cpu %s, memory %s)\n", name, shape.cpu, shape.memory)
		return
	}
	i := c.rng.IntN(len(c.alive))
	name := c.alive[i]
	c.alive = append(c.alive[:i], c.alive[i+1:]...)
	zero := int64(0)
	if err := c.client.CoreV1().Pods(metav1.NamespaceDefault).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(c.out, "churn: deleting default/%s: %v\n", name, err)
		}
		return
	}
	fmt.Fprintf(c.out, "churn: deleted default/%s\n", name)
}
