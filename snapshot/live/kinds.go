package live

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// kind is one kind the scheduler reads. Secrets and ConfigMaps are never
// among them.
type kind struct {
	// Name is the Kind ("Pod"); resource is the REST resource ("pods").
	name, resource string
	// required kinds fail the sync when they cannot be listed; the others
	// give a warning and are left out.
	required bool
	informer func(informers.SharedInformerFactory) cache.SharedIndexInformer
	// probe lists at most one object: it tells a forbidden or missing
	// resource before an informer would retry it forever.
	probe func(context.Context, kubernetes.Interface, metav1.ListOptions) error
}

// scheduledPods is the scheduler's own pod informer: terminal pods are
// invisible to it (pkg/scheduler/scheduler.go newPodInformer).
func scheduledPods(f informers.SharedInformerFactory) cache.SharedIndexInformer {
	return f.InformerFor(&v1.Pod{}, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return coreinformers.NewFilteredPodInformer(c, metav1.NamespaceAll, resync, cache.Indexers{}, func(o *metav1.ListOptions) {
			o.FieldSelector = podFieldSelector
		})
	})
}

var podFieldSelector = fields.AndSelectors(
	fields.OneTermNotEqualSelector("status.phase", string(v1.PodSucceeded)),
	fields.OneTermNotEqualSelector("status.phase", string(v1.PodFailed)),
).String()

func list[T runtime.Object](f func(context.Context, metav1.ListOptions) (T, error)) func(context.Context, metav1.ListOptions) error {
	return func(ctx context.Context, o metav1.ListOptions) error {
		_, err := f(ctx, o)
		return err
	}
}

// kinds in the order they are listed and loaded.
var kinds = []*kind{
	{name: "Node", resource: "nodes", required: true,
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Core().V1().Nodes().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().Nodes().List)(ctx, o)
		}},
	{name: "Pod", resource: "pods", required: true, informer: scheduledPods,
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			o.FieldSelector = podFieldSelector
			return list(c.CoreV1().Pods("").List)(ctx, o)
		}},
	{name: "PriorityClass", resource: "priorityclasses",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Scheduling().V1().PriorityClasses().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.SchedulingV1().PriorityClasses().List)(ctx, o)
		}},
	{name: "PodDisruptionBudget", resource: "poddisruptionbudgets",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Policy().V1().PodDisruptionBudgets().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.PolicyV1().PodDisruptionBudgets("").List)(ctx, o)
		}},
	{name: "Namespace", resource: "namespaces",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Core().V1().Namespaces().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().Namespaces().List)(ctx, o)
		}},
	{name: "PersistentVolume", resource: "persistentvolumes",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Core().V1().PersistentVolumes().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().PersistentVolumes().List)(ctx, o)
		}},
	{name: "PersistentVolumeClaim", resource: "persistentvolumeclaims",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Core().V1().PersistentVolumeClaims().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().PersistentVolumeClaims("").List)(ctx, o)
		}},
	{name: "StorageClass", resource: "storageclasses",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Storage().V1().StorageClasses().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.StorageV1().StorageClasses().List)(ctx, o)
		}},
	{name: "CSINode", resource: "csinodes",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Storage().V1().CSINodes().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.StorageV1().CSINodes().List)(ctx, o)
		}},
	{name: "CSIDriver", resource: "csidrivers",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Storage().V1().CSIDrivers().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.StorageV1().CSIDrivers().List)(ctx, o)
		}},
	{name: "CSIStorageCapacity", resource: "csistoragecapacities",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Storage().V1().CSIStorageCapacities().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.StorageV1().CSIStorageCapacities("").List)(ctx, o)
		}},
	{name: "VolumeAttachment", resource: "volumeattachments",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Storage().V1().VolumeAttachments().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.StorageV1().VolumeAttachments().List)(ctx, o)
		}},
	{name: "Service", resource: "services",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Core().V1().Services().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().Services("").List)(ctx, o)
		}},
	{name: "ReplicaSet", resource: "replicasets",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Apps().V1().ReplicaSets().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.AppsV1().ReplicaSets("").List)(ctx, o)
		}},
	{name: "StatefulSet", resource: "statefulsets",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Apps().V1().StatefulSets().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.AppsV1().StatefulSets("").List)(ctx, o)
		}},
	{name: "ReplicationController", resource: "replicationcontrollers",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Core().V1().ReplicationControllers().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().ReplicationControllers("").List)(ctx, o)
		}},
	{name: "DaemonSet", resource: "daemonsets",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Apps().V1().DaemonSets().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.AppsV1().DaemonSets("").List)(ctx, o)
		}},
	{name: "RuntimeClass", resource: "runtimeclasses",
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Node().V1().RuntimeClasses().Informer()
		},
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.NodeV1().RuntimeClasses().List)(ctx, o)
		}},
}

// Kinds lists the kinds a live source reads, as Kind names.
func Kinds() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.name
	}
	return out
}
