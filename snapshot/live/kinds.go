package live

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// kind is one kind the scheduler reads. Secrets and ConfigMaps are never
// among them.
type kind struct {
	// Name is the Kind ("Pod").
	name string
	// required kinds fail the sync when they cannot be listed; the others
	// give a warning and are left out.
	required bool
	// gvr is the REST resource; it selects the factory's informer unless
	// custom builds it (the pods the scheduler sees).
	gvr    schema.GroupVersionResource
	custom func(informers.SharedInformerFactory) cache.SharedIndexInformer
	// withoutManagedFields: the informer drops the objects' managed
	// fields (the pods', as upstream's scheduler).
	withoutManagedFields bool
	// probe lists at most one object: it tells a forbidden or missing
	// resource before an informer would retry it forever.
	probe func(context.Context, kubernetes.Interface, metav1.ListOptions) error
	// optIn marks a kind of a group version an API server serves only
	// when told to (--runtime-config): discovery says whether it does
	// before the kind is listed. gate is the scheduler's feature gate
	// under which the scheduler reads the kind: without it a kind not
	// served is not missed.
	optIn bool
	gate  string
}

// scheduledPods is the scheduler's own pod informer: terminal pods are
// invisible to it (pkg/scheduler/scheduler.go newPodInformer; its managed
// fields are dropped by the transform, dropManagedFields).
func scheduledPods(f informers.SharedInformerFactory) cache.SharedIndexInformer {
	return f.InformerFor(&v1.Pod{}, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return coreinformers.NewFilteredPodInformer(c, metav1.NamespaceAll, resync, cache.Indexers{}, func(o *metav1.ListOptions) {
			o.FieldSelector = podFieldSelector
		})
	})
}

// dropManagedFields is what the pod informer's transform does first, as
// upstream's scheduler's does (newPodInformer): the object without its
// managed fields, which nothing shows; at a million pods they are a good
// part of what the informer holds.
func dropManagedFields(obj any) {
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
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
	{name: "Node", gvr: res("", "v1", "nodes"), required: true,
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().Nodes().List)(ctx, o)
		}},
	{name: "Pod", gvr: res("", "v1", "pods"), required: true, custom: scheduledPods, withoutManagedFields: true,
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			o.FieldSelector = podFieldSelector
			return list(c.CoreV1().Pods("").List)(ctx, o)
		}},
	{name: "PriorityClass", gvr: res("scheduling.k8s.io", "v1", "priorityclasses"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.SchedulingV1().PriorityClasses().List)(ctx, o)
		}},
	{name: "PodDisruptionBudget", gvr: res("policy", "v1", "poddisruptionbudgets"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.PolicyV1().PodDisruptionBudgets("").List)(ctx, o)
		}},
	{name: "Namespace", gvr: res("", "v1", "namespaces"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().Namespaces().List)(ctx, o)
		}},
	{name: "PersistentVolume", gvr: res("", "v1", "persistentvolumes"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().PersistentVolumes().List)(ctx, o)
		}},
	{name: "PersistentVolumeClaim", gvr: res("", "v1", "persistentvolumeclaims"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().PersistentVolumeClaims("").List)(ctx, o)
		}},
	{name: "StorageClass", gvr: res("storage.k8s.io", "v1", "storageclasses"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.StorageV1().StorageClasses().List)(ctx, o)
		}},
	{name: "CSINode", gvr: res("storage.k8s.io", "v1", "csinodes"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.StorageV1().CSINodes().List)(ctx, o)
		}},
	{name: "CSIDriver", gvr: res("storage.k8s.io", "v1", "csidrivers"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.StorageV1().CSIDrivers().List)(ctx, o)
		}},
	{name: "CSIStorageCapacity", gvr: res("storage.k8s.io", "v1", "csistoragecapacities"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.StorageV1().CSIStorageCapacities("").List)(ctx, o)
		}},
	{name: "VolumeAttachment", gvr: res("storage.k8s.io", "v1", "volumeattachments"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.StorageV1().VolumeAttachments().List)(ctx, o)
		}},
	{name: "Service", gvr: res("", "v1", "services"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().Services("").List)(ctx, o)
		}},
	{name: "ReplicaSet", gvr: res("apps", "v1", "replicasets"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.AppsV1().ReplicaSets("").List)(ctx, o)
		}},
	{name: "StatefulSet", gvr: res("apps", "v1", "statefulsets"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.AppsV1().StatefulSets("").List)(ctx, o)
		}},
	{name: "ReplicationController", gvr: res("", "v1", "replicationcontrollers"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.CoreV1().ReplicationControllers("").List)(ctx, o)
		}},
	{name: "DaemonSet", gvr: res("apps", "v1", "daemonsets"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.AppsV1().DaemonSets("").List)(ctx, o)
		}},
	{name: "RuntimeClass", gvr: res("node.k8s.io", "v1", "runtimeclasses"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.NodeV1().RuntimeClasses().List)(ctx, o)
		}},
	{name: "DeviceClass", gvr: res("resource.k8s.io", "v1", "deviceclasses"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.ResourceV1().DeviceClasses().List)(ctx, o)
		}},
	{name: "ResourceSlice", gvr: res("resource.k8s.io", "v1", "resourceslices"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.ResourceV1().ResourceSlices().List)(ctx, o)
		}},
	{name: "DeviceTaintRule", gvr: res("resource.k8s.io", "v1", "devicetaintrules"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.ResourceV1().DeviceTaintRules().List)(ctx, o)
		}},
	{name: "ResourceClaimTemplate", gvr: res("resource.k8s.io", "v1", "resourceclaimtemplates"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.ResourceV1().ResourceClaimTemplates("").List)(ctx, o)
		}},
	{name: "ResourceClaim", gvr: res("resource.k8s.io", "v1", "resourceclaims"),
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.ResourceV1().ResourceClaims("").List)(ctx, o)
		}},
	// Workload-aware scheduling, in the versions v1.37 serves (none of
	// them by default).
	{name: "Workload", gvr: res("scheduling.k8s.io", "v1beta1", "workloads"), optIn: true, gate: "GenericWorkload",
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.SchedulingV1beta1().Workloads("").List)(ctx, o)
		}},
	{name: "CompositePodGroup", gvr: res("scheduling.k8s.io", "v1alpha3", "compositepodgroups"), optIn: true, gate: "CompositePodGroup",
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.SchedulingV1alpha3().CompositePodGroups("").List)(ctx, o)
		}},
	{name: "PodGroup", gvr: res("scheduling.k8s.io", "v1beta1", "podgroups"), optIn: true, gate: "GenericWorkload",
		probe: func(ctx context.Context, c kubernetes.Interface, o metav1.ListOptions) error {
			return list(c.SchedulingV1beta1().PodGroups("").List)(ctx, o)
		}},
}

func res(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}

// informer returns the factory's informer of the kind.
func (k *kind) informer(f informers.SharedInformerFactory) (cache.SharedIndexInformer, error) {
	if k.custom != nil {
		return k.custom(f), nil
	}
	gi, err := f.ForResource(k.gvr)
	if err != nil {
		return nil, err
	}
	return gi.Informer(), nil
}

// Kinds lists the kinds a live source reads, as Kind names.
func Kinds() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.name
	}
	return out
}
