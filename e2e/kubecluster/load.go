package kubecluster

import (
	"context"
	"fmt"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/schedtui/schedtui/snapshot"
)

// statusKinds are the kinds whose status the scheduler reads (or that a
// controller would have set): created, then their status written.
var statusKinds = map[string]bool{"Node": true, "Pod": true, "PersistentVolume": true, "PersistentVolumeClaim": true, "PodDisruptionBudget": true, "VolumeAttachment": true, "ResourceClaim": true}

// Filled is what Fill did.
type Filled struct {
	// Created counts the objects created.
	Created int
	// Pending are the pending pods, ready to create, when Fill was told
	// not to create them.
	Pending []*v1.Pod
	// Stuck are the pods the snapshot has terminating (namespace/name):
	// deleted with a grace period of an hour, their kubelet never
	// confirms.
	Stuck map[string]bool
	// Skipped says what was left out, and why.
	Skipped []string
}

// FillOptions say what Fill does with pending pods and pods with
// resource claims.
type FillOptions struct {
	// CreatePending creates the pending pods, after every other object;
	// else they are returned in Filled.Pending.
	CreatePending bool
	// SkipClaimPods leaves out pods with resource claims (for a snapshot
	// whose claims are not objects of its own).
	SkipClaimPods bool
}

// Fill creates a snapshot's objects (snapshot.Cluster.Objects) as a
// cluster without controllers would hold them: every object without its
// server-set metadata, nodes first, with their status and exactly their
// taints, then the other kinds but volumes in the snapshot's order, then
// the volumes (after the claims, so that a PV's claimRef names its claim's
// new UID), then the bound pods, bound and with
// their status, terminating pods deleted with a long grace period, then
// the pending pods without their status (nominatedNodeName is the
// scheduler's to set). Objects that already exist (the default namespaces
// and priority classes) are left as they are; anything the API server
// refuses is left out, with a note in Skipped. The error is for a client
// that cannot be set up.
func Fill(ctx context.Context, cfg *rest.Config, objs []runtime.Object, opts FillOptions) (*Filled, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client.Discovery()))
	f := &Filled{Stuck: map[string]bool{}}
	objs = slices.Clone(objs)
	rank := func(o runtime.Object) int {
		switch o := o.(type) {
		case *v1.Node:
			return 0
		case *v1.PersistentVolume:
			return 2
		case *v1.Pod:
			if o.Spec.NodeName == "" {
				return 4
			}
			return 3
		}
		return 1
	}
	sort.SliceStable(objs, func(i, j int) bool { return rank(objs[i]) < rank(objs[j]) })
	claimUIDs := map[string]types.UID{}
	for _, o := range objs {
		o = o.DeepCopyObject()
		acc, err := meta.Accessor(o)
		if err != nil {
			return nil, err
		}
		name := acc.GetNamespace() + "/" + acc.GetName()
		terminating := acc.GetDeletionTimestamp() != nil
		acc.SetUID("")
		acc.SetResourceVersion("")
		acc.SetCreationTimestamp(metav1.Time{})
		acc.SetGeneration(0)
		acc.SetManagedFields(nil)
		acc.SetDeletionTimestamp(nil)
		acc.SetDeletionGracePeriodSeconds(nil)
		switch o := o.(type) {
		case *v1.Pod:
			if opts.SkipClaimPods && len(o.Spec.ResourceClaims) > 0 {
				f.Skipped = append(f.Skipped, "Pod "+name+": resource claims")
				continue
			}
			// The Priority and RuntimeClass admission plugins compute
			// these again from the classes, and refuse a pod that
			// brings its own.
			o.Spec.Priority, o.Spec.PreemptionPolicy = nil, nil
			if o.Spec.RuntimeClassName != nil {
				o.Spec.Overhead = nil
			}
			unmergeMatchLabelKeys(o)
			if o.Spec.NodeName == "" {
				if terminating {
					f.Skipped = append(f.Skipped, "Pod "+name+": pending and terminating")
					continue
				}
				o.Status = v1.PodStatus{}
				if !opts.CreatePending {
					f.Pending = append(f.Pending, o)
					continue
				}
			}
		case *schedulingv1beta1.PodGroup:
			// As a pod's: the Priority admission plugin resolves it
			// again from the class, and refuses a group bringing
			// another.
			o.Spec.Priority = nil
		case *v1.Service:
			// The snapshot's addresses are not this server's range; the
			// scheduler reads only the selector.
			o.Spec.ClusterIP, o.Spec.ClusterIPs = "", nil
		case *v1.PersistentVolume:
			if ref := o.Spec.ClaimRef; ref != nil && ref.UID != "" {
				ref.UID = claimUIDs[ref.Namespace+"/"+ref.Name]
			}
		}
		created, err := createObject(ctx, dyn, mapper, o)
		if apierrors.IsAlreadyExists(err) {
			continue
		}
		if err != nil {
			f.Skipped = append(f.Skipped, fmt.Sprintf("%s %s: %v", kindOf(o), name, err))
			continue
		}
		f.Created++
		if _, ok := o.(*v1.PersistentVolumeClaim); ok {
			claimUIDs[name] = created.GetUID()
		}
		if p, ok := o.(*v1.Pod); ok && terminating {
			grace := int64(3600)
			if err := client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
				f.Skipped = append(f.Skipped, fmt.Sprintf("Pod %s: terminating: %v", name, err))
				continue
			}
			f.Stuck[name] = true
		}
	}
	return f, nil
}

// kindOf names o's kind for a note ("Pod"), or its Go type.
func kindOf(o runtime.Object) string {
	if typed, err := snapshot.WithKind(o); err == nil {
		return typed.GetObjectKind().GroupVersionKind().Kind
	}
	return fmt.Sprintf("%T", o)
}

// unmergeMatchLabelKeys undoes what the API server does on create and
// the snapshot already did (matchLabelKeys and mismatchLabelKeys merged
// into the label selectors), which the API server refuses to find done.
func unmergeMatchLabelKeys(p *v1.Pod) {
	drop := func(sel *metav1.LabelSelector, keys []string, op metav1.LabelSelectorOperator) {
		if sel == nil {
			return
		}
		for _, k := range keys {
			sel.MatchExpressions = slices.DeleteFunc(sel.MatchExpressions, func(r metav1.LabelSelectorRequirement) bool {
				return r.Key == k && r.Operator == op && len(r.Values) == 1 && r.Values[0] == p.Labels[k]
			})
		}
	}
	term := func(t *v1.PodAffinityTerm) {
		drop(t.LabelSelector, t.MatchLabelKeys, metav1.LabelSelectorOpIn)
		drop(t.LabelSelector, t.MismatchLabelKeys, metav1.LabelSelectorOpNotIn)
	}
	if a := p.Spec.Affinity; a != nil {
		var required []v1.PodAffinityTerm
		var preferred []v1.WeightedPodAffinityTerm
		if pa := a.PodAffinity; pa != nil {
			required, preferred = append(required, pa.RequiredDuringSchedulingIgnoredDuringExecution...), append(preferred, pa.PreferredDuringSchedulingIgnoredDuringExecution...)
		}
		if pa := a.PodAntiAffinity; pa != nil {
			required, preferred = append(required, pa.RequiredDuringSchedulingIgnoredDuringExecution...), append(preferred, pa.PreferredDuringSchedulingIgnoredDuringExecution...)
		}
		// The terms share their selectors with the pod's.
		for i := range required {
			term(&required[i])
		}
		for i := range preferred {
			term(&preferred[i].PodAffinityTerm)
		}
	}
	for i := range p.Spec.TopologySpreadConstraints {
		c := &p.Spec.TopologySpreadConstraints[i]
		drop(c.LabelSelector, c.MatchLabelKeys, metav1.LabelSelectorOpIn)
	}
}

// createObject creates o through the dynamic client and then writes its
// status (for statusKinds); a node gets its taints back, which the
// TaintNodesByCondition admission plugin replaced on create.
func createObject(ctx context.Context, dyn dynamic.Interface, mapper *restmapper.DeferredDiscoveryRESTMapper, o runtime.Object) (*unstructured.Unstructured, error) {
	o, err := snapshot.WithKind(o)
	if err != nil {
		return nil, err
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{Object: u}
	gvk := obj.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
	if ns := obj.GetNamespace(); ns != "" {
		ri = dyn.Resource(m.Resource).Namespace(ns)
	}
	created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil || !statusKinds[gvk.Kind] {
		return created, err
	}
	if status, ok := u["status"]; ok {
		created.Object["status"] = status
		if created, err = ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return nil, fmt.Errorf("status: %w", err)
		}
	}
	if gvk.Kind == "Node" {
		taints, _, _ := unstructured.NestedSlice(u, "spec", "taints")
		if err := unstructured.SetNestedSlice(created.Object, taints, "spec", "taints"); err != nil {
			return nil, err
		}
		if created, err = ri.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
			return nil, fmt.Errorf("taints: %w", err)
		}
	}
	return created, nil
}
