package scenario

// The builder's workload objects: services, the controllers that own pods
// (ReplicaSets, StatefulSets, ReplicationControllers, DaemonSets) with their
// pod templates, and PodDisruptionBudgets.

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/schedtui/schedtui/snapshot/apiserver"
)

func (b *builder) addService(ns, name string, selector map[string]string, headless bool) *v1.Service {
	s := &v1.Service{ObjectMeta: b.meta("Service", ns, name)}
	s.Spec.Selector = selector
	s.Spec.Type = v1.ServiceTypeClusterIP
	s.Spec.SessionAffinity = v1.ServiceAffinityNone
	s.Spec.InternalTrafficPolicy = ptrTo(v1.ServiceInternalTrafficPolicyCluster)
	s.Spec.IPFamilies = []v1.IPFamily{v1.IPv4Protocol}
	s.Spec.IPFamilyPolicy = ptrTo(v1.IPFamilyPolicySingleStack)
	s.Spec.Ports = []v1.ServicePort{{Name: "http", Port: 80, Protocol: v1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}}
	if headless {
		s.Spec.ClusterIP = v1.ClusterIPNone
		s.Spec.ClusterIPs = []string{v1.ClusterIPNone}
	} else {
		b.svcIP++
		ip := fmt.Sprintf("10.96.%d.%d", b.svcIP/250, b.svcIP%250+10)
		s.Spec.ClusterIP = ip
		s.Spec.ClusterIPs = []string{ip}
	}
	b.c.Services = append(b.c.Services, s)
	return s
}

// addExternalNameService adds a selector-less service (matches no pod).
func (b *builder) addExternalNameService(ns, name, host string) *v1.Service {
	s := &v1.Service{ObjectMeta: b.meta("Service", ns, name)}
	s.Spec.Type = v1.ServiceTypeExternalName
	s.Spec.ExternalName = host
	s.Spec.SessionAffinity = v1.ServiceAffinityNone
	b.c.Services = append(b.c.Services, s)
	return s
}

func podTemplate(labels map[string]string, spec v1.PodSpec) v1.PodTemplateSpec {
	t := v1.PodTemplateSpec{Spec: *spec.DeepCopy()}
	t.Labels = labels
	apiserver.DefaultPodSpec(&t.Spec)
	apiserver.DefaultVolumeFields(&t.Spec)
	return t
}

func (b *builder) addReplicaSet(ns, name string, replicas int32, sel *metav1.LabelSelector, labels map[string]string, spec v1.PodSpec) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{ObjectMeta: b.meta("ReplicaSet", ns, name)}
	rs.Generation = 1
	rs.Labels = labels
	deploy := strings.TrimSuffix(name, "-"+labels["pod-template-hash"])
	rs.Annotations = map[string]string{"deployment.kubernetes.io/desired-replicas": fmt.Sprint(replicas),
		"deployment.kubernetes.io/max-replicas": fmt.Sprint(replicas + 1), "deployment.kubernetes.io/revision": "1"}
	rs.OwnerReferences = []metav1.OwnerReference{ownerRef("apps/v1", "Deployment", deploy, b.uid("Deployment", ns, deploy))}
	rs.Spec.Replicas = ptrTo(replicas)
	rs.Spec.Selector = sel
	rs.Spec.Template = podTemplate(labels, spec)
	rs.Status = appsv1.ReplicaSetStatus{Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: replicas,
		AvailableReplicas: replicas, ObservedGeneration: 1}
	b.c.ReplicaSets = append(b.c.ReplicaSets, rs)
	return rs
}

func (b *builder) addStatefulSet(ns, name, svc string, replicas int32, sel *metav1.LabelSelector, labels map[string]string, spec v1.PodSpec) *appsv1.StatefulSet {
	ss := &appsv1.StatefulSet{ObjectMeta: b.meta("StatefulSet", ns, name)}
	ss.Generation = 1
	ss.Spec.Replicas = ptrTo(replicas)
	ss.Spec.Selector = sel
	ss.Spec.ServiceName = svc
	ss.Spec.Template = podTemplate(labels, spec)
	ss.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptrTo(int32(0)), MaxUnavailable: ptrTo(intstr.FromInt32(1))}}
	ss.Spec.RevisionHistoryLimit = ptrTo(int32(10))
	ss.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}
	ss.Status = appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: replicas, ReadyReplicas: replicas, CurrentReplicas: replicas,
		UpdatedReplicas: replicas, AvailableReplicas: replicas, CurrentRevision: labels[appsv1.ControllerRevisionHashLabelKey],
		UpdateRevision: labels[appsv1.ControllerRevisionHashLabelKey], CollisionCount: ptrTo(int32(0))}
	b.c.StatefulSets = append(b.c.StatefulSets, ss)
	return ss
}

func (b *builder) addReplicationController(ns, name string, replicas int32, sel, labels map[string]string, spec v1.PodSpec) *v1.ReplicationController {
	rc := &v1.ReplicationController{ObjectMeta: b.meta("ReplicationController", ns, name)}
	rc.Generation = 1
	rc.Labels = labels
	rc.Spec.Replicas = ptrTo(replicas)
	rc.Spec.Selector = sel
	t := podTemplate(labels, spec)
	rc.Spec.Template = &t
	rc.Status = v1.ReplicationControllerStatus{Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: replicas,
		AvailableReplicas: replicas, ObservedGeneration: 1}
	b.c.ReplicationControllers = append(b.c.ReplicationControllers, rc)
	return rc
}

func (b *builder) addDaemonSet(ns, name string, sel *metav1.LabelSelector, labels map[string]string, spec v1.PodSpec, scheduled int32) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{ObjectMeta: b.meta("DaemonSet", ns, name)}
	ds.Generation = 1
	ds.Annotations = map[string]string{"deprecated.daemonset.template.generation": "1"}
	ds.Spec.Selector = sel
	ds.Spec.Template = podTemplate(labels, spec)
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptrTo(intstr.FromInt32(1)), MaxSurge: ptrTo(intstr.FromInt32(0))}}
	ds.Spec.RevisionHistoryLimit = ptrTo(int32(10))
	ds.Status = appsv1.DaemonSetStatus{CurrentNumberScheduled: scheduled, DesiredNumberScheduled: scheduled, NumberReady: scheduled,
		NumberAvailable: scheduled, UpdatedNumberScheduled: scheduled, ObservedGeneration: 1}
	b.c.DaemonSets = append(b.c.DaemonSets, ds)
	return ds
}

// daemonTolerations is AddOrUpdateDaemonPodTolerations for a pod without hostNetwork.
func daemonTolerations() []v1.Toleration {
	return []v1.Toleration{
		{Key: taintNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		{Key: taintUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/disk-pressure", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/memory-pressure", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/pid-pressure", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: taintUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	}
}

// daemonAffinity is ReplaceDaemonSetPodNodeNameNodeAffinity's result.
func daemonAffinity(node string) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{
			Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
}

func (b *builder) addPDB(ns, name string, sel *metav1.LabelSelector, minAvailable, maxUnavailable *intstr.IntOrString,
	allowed, healthy, desired, expected int32, disrupted map[string]metav1.Time) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: b.meta("PodDisruptionBudget", ns, name)}
	pdb.Generation = 1
	pdb.Spec.Selector = sel
	pdb.Spec.MinAvailable = minAvailable
	pdb.Spec.MaxUnavailable = maxUnavailable
	cond := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionTrue,
		Reason: policyv1.SufficientPodsReason, ObservedGeneration: 1, LastTransitionTime: pdb.CreationTimestamp}
	if allowed <= 0 {
		cond.Status = metav1.ConditionFalse
		cond.Reason = policyv1.InsufficientPodsReason
	}
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptedPods: disrupted, DisruptionsAllowed: allowed,
		CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: expected, Conditions: []metav1.Condition{cond}}
	b.c.PodDisruptionBudgets = append(b.c.PodDisruptionBudgets, pdb)
	return pdb
}
