package scenario

// The builder's pods: containers, admission into the stored form (through
// snapshot/apiserver), QoS, binding to a node with a kubelet's status,
// termination.

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/snapshot/apiserver"
)

func ctr(name, img string, requests ...string) v1.Container {
	c := v1.Container{Name: name, Image: img}
	if len(requests) > 0 {
		c.Resources.Requests = rl(requests...)
	}
	return c
}

// withLimits sets container limits.
func withLimits(c v1.Container, limits ...string) v1.Container {
	c.Resources.Limits = rl(limits...)
	return c
}

// withReqLim sets a request and an equal limit (extended resources and
// hugepages must have requests == limits).
func withReqLim(c v1.Container, pairs ...string) v1.Container {
	r := rl(pairs...)
	c.Resources.Requests = mergeRL(c.Resources.Requests, r)
	c.Resources.Limits = mergeRL(c.Resources.Limits, r)
	return c
}

func sidecar(c v1.Container) v1.Container {
	c.RestartPolicy = ptrTo(v1.ContainerRestartPolicyAlways)
	return c
}

func hostPort(c v1.Container, port int32, proto v1.Protocol, hostIP string) v1.Container {
	c.Ports = append(c.Ports, v1.ContainerPort{
		Name:          fmt.Sprintf("hp-%d-%s", port, strings.ToLower(string(proto))),
		ContainerPort: port,
		HostPort:      port,
		Protocol:      proto,
		HostIP:        hostIP,
	})
	return c
}

// newPod returns a bare pod that still has to go through admitPod.
func newPod(ns, name string, labels map[string]string, ctrs ...v1.Container) *v1.Pod {
	p := &v1.Pod{}
	p.Namespace = ns
	p.Name = name
	if len(labels) > 0 {
		p.Labels = map[string]string{}
		for k, v := range labels {
			p.Labels[k] = v
		}
	}
	p.Spec.Containers = ctrs
	return p
}

// admitPod turns a hand-built pod into its stored form as an API server
// creates it: snapshot/apiserver's defaulting (with the volume fields a
// loaded snapshot keeps as written), its admission (Priority,
// DefaultTolerationSeconds, RuntimeClass) and PrepareForCreate (which sets
// the generation), plus what apiserver does not emulate because a loaded
// pod keeps it as written: ServiceAccount admission (no token volume:
// automount is switched off explicitly), the reset status and its QoS
// class.
func (b *builder) admitPod(p *v1.Pod) {
	if p.Namespace == "" {
		p.Namespace = metav1.NamespaceDefault
	}
	p.UID = b.uid("Pod", p.Namespace, p.Name)
	p.CreationTimestamp = b.now()

	apiserver.Default(p)
	apiserver.DefaultVolumeFields(&p.Spec)
	if _, rejected := apiserver.AdmitPod(p, p.Name, b.c.PriorityClasses, b.rcs); rejected != nil {
		panic("scenario: pod " + p.Name + ": " + rejected.Field + ": " + rejected.Message)
	}
	if p.Spec.ServiceAccountName == "" {
		p.Spec.ServiceAccountName = "default"
		p.Spec.DeprecatedServiceAccount = "default"
	}
	if p.Spec.AutomountServiceAccountToken == nil {
		p.Spec.AutomountServiceAccountToken = ptrTo(false)
	}

	p.Status = v1.PodStatus{}
	apiserver.PrepareForCreate(p)
	for i := range p.Status.Conditions {
		// The scenarios stamp the scheduling-gated condition with the
		// creation time (the API server leaves it unset; nothing the
		// scheduler reads depends on it).
		if c := &p.Status.Conditions[i]; c.Reason == v1.PodReasonSchedulingGated {
			c.LastTransitionTime = p.CreationTimestamp
		}
	}
	p.Status.QOSClass = podQOS(p)
}

// podQOS mirrors qos.ComputePodQOS with PodLevelResources and
// PodLevelResourcesFixKubeletQOSClass enabled.
func podQOS(p *v1.Pod) v1.PodQOSClass {
	if r := p.Spec.Resources; r != nil {
		set := false
		for k := range r.Requests {
			set = set || resourcehelper.IsSupportedPodLevelResource(k)
		}
		for k := range r.Limits {
			set = set || resourcehelper.IsSupportedPodLevelResource(k)
		}
		if set {
			return requirementsQOS(r)
		}
	}
	var q v1.PodQOSClass
	for _, cs := range [][]v1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			cq := requirementsQOS(&cs[i].Resources)
			switch {
			case cq == v1.PodQOSBurstable:
				return cq
			case q == "":
				q = cq
			case q != cq:
				return v1.PodQOSBurstable
			}
		}
	}
	if q == "" {
		q = v1.PodQOSBestEffort
	}
	return q
}

func requirementsQOS(r *v1.ResourceRequirements) v1.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return v1.PodQOSBestEffort
	}
	var q v1.PodQOSClass
	for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		req, lim := r.Requests[name], r.Limits[name]
		var rq v1.PodQOSClass
		switch {
		case !req.Equal(lim):
			rq = v1.PodQOSBurstable
		case req.IsZero():
			rq = v1.PodQOSBestEffort
		default:
			rq = v1.PodQOSGuaranteed
		}
		if rq == v1.PodQOSBurstable {
			return rq
		}
		if q == "" {
			q = rq
		} else if q != rq {
			return v1.PodQOSBurstable
		}
	}
	return q
}

// addPending admits p as a pending (unscheduled) pod.
func (b *builder) addPending(p *v1.Pod) *v1.Pod {
	b.admitPod(p)
	b.c.Pods = append(b.c.Pods, p)
	return p
}

// addBound admits p and binds it to node, with the status a kubelet reports
// for a running pod that started at start.
func (b *builder) addBound(p *v1.Pod, node string, start metav1.Time, ctrStatuses bool) *v1.Pod {
	b.admitPod(p)
	b.bindPod(p, node, start, ctrStatuses)
	b.c.Pods = append(b.c.Pods, p)
	return p
}

func (b *builder) bindPod(p *v1.Pod, node string, start metav1.Time, ctrStatuses bool) {
	p.Spec.NodeName = node
	p.Status.Phase = v1.PodRunning
	p.Status.ObservedGeneration = 1
	p.Status.Conditions = nil
	for _, ct := range []v1.PodConditionType{v1.PodReadyToStartContainers, v1.PodInitialized, v1.PodReady, v1.ContainersReady, v1.PodScheduled} {
		p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: ct, Status: v1.ConditionTrue, ObservedGeneration: 1, LastTransitionTime: start})
	}
	hostIP := b.nodeIP[node]
	if hostIP == "" {
		hostIP = "10.255.255.1"
	}
	p.Status.HostIP = hostIP
	p.Status.HostIPs = []v1.HostIP{{IP: hostIP}}
	if p.Spec.HostNetwork {
		p.Status.PodIP = hostIP
	} else {
		b.podIPs[node]++
		idx := b.nodeNum[node]
		p.Status.PodIP = fmt.Sprintf("10.%d.%d.%d", 64+idx/256, idx%256, 1+b.podIPs[node]%254)
	}
	p.Status.PodIPs = []v1.PodIP{{IP: p.Status.PodIP}}
	p.Status.StartTime = ptrTo(start)
	if ctrStatuses {
		status := func(c v1.Container, init bool) v1.ContainerStatus {
			cs := v1.ContainerStatus{
				Name:        c.Name,
				Image:       c.Image,
				ImageID:     "sha256:" + hashHex(c.Image, 64),
				ContainerID: "containerd://" + hashHex(string(p.UID)+c.Name, 64),
				Ready:       true,
				Started:     ptrTo(true),
				State:       v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: start}},
			}
			if init && (c.RestartPolicy == nil || *c.RestartPolicy != v1.ContainerRestartPolicyAlways) {
				cs.Started = ptrTo(false)
				cs.State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
					StartedAt: start, FinishedAt: start, ContainerID: cs.ContainerID}}
			}
			if len(c.Resources.Requests) > 0 {
				cs.AllocatedResources = mergeRL(nil, c.Resources.Requests)
			}
			if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
				cs.Resources = &v1.ResourceRequirements{Requests: mergeRL(nil, c.Resources.Requests), Limits: mergeRL(nil, c.Resources.Limits)}
			}
			return cs
		}
		p.Status.ContainerStatuses = nil
		p.Status.InitContainerStatuses = nil
		for _, c := range p.Spec.InitContainers {
			p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, status(c, true))
		}
		for _, c := range p.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, status(c, false))
		}
	}
}

// terminate marks a stored pod as being gracefully deleted at t.
func terminate(p *v1.Pod, t metav1.Time, byPreemption bool) {
	p.DeletionTimestamp = ptrTo(t)
	p.DeletionGracePeriodSeconds = ptrTo(*p.Spec.TerminationGracePeriodSeconds)
	if byPreemption {
		p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{
			Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler,
			Message:            defaultScheduler + ": preempting to accommodate a higher priority pod",
			LastTransitionTime: t, ObservedGeneration: 1,
		})
	}
}

// markUnschedulable gives a pending pod the PodScheduled=False condition a
// previous failed attempt leaves behind.
func markUnschedulable(p *v1.Pod, t metav1.Time, msg string) {
	p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{
		Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable,
		Message: msg, LastTransitionTime: t, LastProbeTime: metav1.Time{}, ObservedGeneration: 1,
	})
}

func ownerRef(apiVersion, kind, name string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid,
		Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true)}
}

// ---------------------------------------------------------------------------
