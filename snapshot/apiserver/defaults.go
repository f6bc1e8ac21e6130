// Package apiserver emulates what a kube-apiserver v1.37 does to the
// objects schedtui reads before the scheduler sees them: defaulting (Default),
// create-time mutations (PrepareForCreate), validation (ValidateObjectMeta,
// Validate) and the admission plugins that touch scheduling (AdmitPod,
// AdmitPersistentVolumeClaim). It knows nothing about files or clusters:
// the snapshot loader calls it for every object.
package apiserver

// API-server defaulting, written from the behaviour of
//   k8s.io/kubernetes v1.37.1 pkg/apis/core/v1/defaults.go (+ zz_generated.defaults.go),
//   pkg/apis/apps/v1/defaults.go, pkg/apis/storage/v1/defaults.go,
//   pkg/apis/scheduling/v1/defaults.go,
// with the feature gates at their 1.37 defaults. The API server applies
// these every time an object is decoded (also when read back from etcd), so
// they are applied to every loaded object, captured or hand-written.

import (
	"reflect"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func ptrTo[T any](v T) *T { return &v }

// roundResourceList rounds every quantity up to milli precision
// (SetDefaults_ResourceList).
func roundResourceList(rl v1.ResourceList) {
	for k, q := range rl {
		q.RoundUp(-3)
		rl[k] = q
	}
}

func roundResourceRequirements(r *v1.ResourceRequirements) {
	if r == nil {
		return
	}
	roundResourceList(r.Limits)
	roundResourceList(r.Requests)
}

// defaultRequestsFromLimits sets a request equal to the limit for every
// resource that has a limit but no request (SetDefaults_Pod; pods only, not
// templates, and only regular and init containers: ephemeral containers
// cannot have resources).
func defaultRequestsFromLimits(r *v1.ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = make(v1.ResourceList, len(r.Limits))
	}
	for k, q := range r.Limits {
		if _, ok := r.Requests[k]; !ok {
			r.Requests[k] = q.DeepCopy()
		}
	}
}

// defaultPod mirrors SetObjectDefaults_Pod.
func defaultPod(pod *v1.Pod) {
	spec := &pod.Spec
	// SetDefaults_Pod
	if spec.TerminationGracePeriodSeconds != nil && *spec.TerminationGracePeriodSeconds < 0 {
		spec.TerminationGracePeriodSeconds = ptrTo[int64](1)
	}
	for i := range spec.Containers {
		defaultRequestsFromLimits(&spec.Containers[i].Resources)
	}
	for i := range spec.InitContainers {
		defaultRequestsFromLimits(&spec.InitContainers[i].Resources)
	}
	// Pod-level requests (PodLevelResources) are defaulted at creation
	// (PodLevelResourcesFixDefaulting is on in 1.37), see prepareForCreate.
	if spec.EnableServiceLinks == nil {
		spec.EnableServiceLinks = ptrTo(v1.DefaultEnableServiceLinks)
	}
	if spec.HostNetwork {
		defaultHostNetworkPorts(spec.Containers)
		defaultHostNetworkPorts(spec.InitContainers)
	}
	defaultPodSpec(spec)
	roundResourceList(spec.Overhead)
	roundResourceRequirements(spec.Resources)
	defaultPodStatus(&pod.Status)
}

func defaultHostNetworkPorts(containers []v1.Container) {
	for i := range containers {
		for j := range containers[i].Ports {
			if containers[i].Ports[j].HostPort == 0 {
				containers[i].Ports[j].HostPort = containers[i].Ports[j].ContainerPort
			}
		}
	}
}

// defaultPodSpec mirrors SetDefaults_PodSpec plus the nested defaulters
// that matter for scheduling; it applies to pods and pod templates.
func defaultPodSpec(spec *v1.PodSpec) {
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = v1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = v1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &v1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptrTo[int64](v1.DefaultTerminationGracePeriodSeconds)
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = v1.DefaultSchedulerName
	}
	for i := range spec.Volumes {
		defaultVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		defaultContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		defaultContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		defaultContainer((*v1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

func defaultPodTemplate(t *v1.PodTemplateSpec) {
	if t != nil {
		defaultPodSpec(&t.Spec)
	}
}

// DefaultPodSpec applies to a pod spec what Default applies to a pod
// template's: for a caller building templates before the object that holds
// them (internal/scenario).
func DefaultPodSpec(spec *v1.PodSpec) { defaultPodSpec(spec) }

// DefaultVolumeFields applies the defaults of the volume fields scheduling
// does not read, which Default leaves alone (a loaded object keeps them as
// written): a hostPath's type, configMap and secret volumes' defaultMode,
// an image volume's pull policy, an ephemeral claim template's volumeMode.
// For a caller that builds objects in the full form an API server stores
// (internal/scenario, whose objects the conformance suite hands to
// upstream's scheduler).
func DefaultVolumeFields(spec *v1.PodSpec) {
	for i := range spec.Volumes {
		vol := &spec.Volumes[i]
		if vol.Image != nil && vol.Image.PullPolicy == "" {
			vol.Image.PullPolicy = pullPolicy(vol.Image.Reference)
		}
		if vol.HostPath != nil && vol.HostPath.Type == nil {
			vol.HostPath.Type = ptrTo(v1.HostPathUnset)
		}
		if vol.ConfigMap != nil && vol.ConfigMap.DefaultMode == nil {
			vol.ConfigMap.DefaultMode = ptrTo(v1.ConfigMapVolumeSourceDefaultMode)
		}
		if vol.Secret != nil && vol.Secret.DefaultMode == nil {
			vol.Secret.DefaultMode = ptrTo(v1.SecretVolumeSourceDefaultMode)
		}
		if e := vol.Ephemeral; e != nil && e.VolumeClaimTemplate != nil && e.VolumeClaimTemplate.Spec.VolumeMode == nil {
			e.VolumeClaimTemplate.Spec.VolumeMode = ptrTo(v1.PersistentVolumeFilesystem)
		}
	}
}

// defaultVolume: a volume without a source is an emptyDir.
func defaultVolume(vol *v1.Volume) {
	if allPointerFieldsNil(reflect.ValueOf(&vol.VolumeSource).Elem()) {
		vol.VolumeSource = v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}
	}
}

func allPointerFieldsNil(v reflect.Value) bool {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && !f.IsNil() {
			return false
		}
	}
	return true
}

func defaultContainer(c *v1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = v1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = v1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = v1.ProtocolTCP
		}
	}
	roundResourceRequirements(&c.Resources)
}

// pullPolicy is the pull policy an image defaults to: Always for the
// latest tag (said or implied), else IfNotPresent.
func pullPolicy(image string) v1.PullPolicy {
	if imageTag(image) == "latest" {
		return v1.PullAlways
	}
	return v1.PullIfNotPresent
}

// imageTag returns the tag of an image reference: "latest" when it has
// neither tag nor digest, "" when it only has a digest.
func imageTag(image string) string {
	name, _, hasDigest := strings.Cut(image, "@")
	if i := strings.LastIndexByte(name, ':'); i >= 0 && !strings.Contains(name[i+1:], "/") {
		return name[i+1:]
	}
	if hasDigest {
		return ""
	}
	return "latest"
}

func defaultPodStatus(s *v1.PodStatus) {
	hasIP, hasIPs := s.PodIP != "", len(s.PodIPs) > 0
	switch {
	case hasIP && !hasIPs:
		s.PodIPs = []v1.PodIP{{IP: s.PodIP}}
	case !hasIP && hasIPs:
		s.PodIP = s.PodIPs[0].IP
	case hasIP && hasIPs && s.PodIPs[0].IP != s.PodIP:
		s.PodIPs = []v1.PodIP{{IP: s.PodIP}}
	}
	for _, statuses := range [][]v1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses, s.EphemeralContainerStatuses} {
		for i := range statuses {
			roundResourceList(statuses[i].AllocatedResources)
			roundResourceRequirements(statuses[i].Resources)
		}
	}
	roundResourceList(s.AllocatedResources)
	roundResourceRequirements(s.Resources)
}

// defaultNode: allocatable defaults to capacity when absent
// (SetDefaults_NodeStatus; upstream aliases the map, a copy is equivalent).
func defaultNode(n *v1.Node) {
	if n.Status.Allocatable == nil && n.Status.Capacity != nil {
		n.Status.Allocatable = make(v1.ResourceList, len(n.Status.Capacity))
		for k, q := range n.Status.Capacity {
			n.Status.Allocatable[k] = q.DeepCopy()
		}
	}
	roundResourceList(n.Status.Capacity)
	roundResourceList(n.Status.Allocatable)
}

func defaultPersistentVolume(pv *v1.PersistentVolume) {
	if pv.Status.Phase == "" {
		pv.Status.Phase = v1.VolumePending
	}
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		pv.Spec.VolumeMode = ptrTo(v1.PersistentVolumeFilesystem)
	}
	roundResourceList(pv.Spec.Capacity)
}

func defaultPersistentVolumeClaim(pvc *v1.PersistentVolumeClaim) {
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = v1.ClaimPending
	}
	if pvc.Spec.VolumeMode == nil {
		pvc.Spec.VolumeMode = ptrTo(v1.PersistentVolumeFilesystem)
	}
	roundResourceList(pvc.Spec.Resources.Limits)
	roundResourceList(pvc.Spec.Resources.Requests)
	roundResourceList(pvc.Status.Capacity)
	roundResourceList(pvc.Status.AllocatedResources)
}

func defaultNamespace(ns *v1.Namespace) {
	if ns.Name != "" {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[v1.LabelMetadataName] = ns.Name
	}
	if ns.Status.Phase == "" {
		ns.Status.Phase = v1.NamespaceActive
	}
}

func defaultService(svc *v1.Service) {
	s := &svc.Spec
	if s.SessionAffinity == "" {
		s.SessionAffinity = v1.ServiceAffinityNone
	}
	if s.SessionAffinity == v1.ServiceAffinityNone {
		s.SessionAffinityConfig = nil
	}
	if s.SessionAffinity == v1.ServiceAffinityClientIP {
		if s.SessionAffinityConfig == nil || s.SessionAffinityConfig.ClientIP == nil || s.SessionAffinityConfig.ClientIP.TimeoutSeconds == nil {
			s.SessionAffinityConfig = &v1.SessionAffinityConfig{ClientIP: &v1.ClientIPConfig{TimeoutSeconds: ptrTo(v1.DefaultClientIPServiceAffinitySeconds)}}
		}
	}
	if s.Type == "" {
		s.Type = v1.ServiceTypeClusterIP
	}
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Protocol == "" {
			p.Protocol = v1.ProtocolTCP
		}
		if p.TargetPort == intstr.FromInt32(0) || p.TargetPort == intstr.FromString("") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	externallyAccessible := s.Type == v1.ServiceTypeLoadBalancer || s.Type == v1.ServiceTypeNodePort ||
		(s.Type == v1.ServiceTypeClusterIP && len(s.ExternalIPs) > 0)
	if externallyAccessible && s.ExternalTrafficPolicy == "" {
		s.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyCluster
	}
	if s.InternalTrafficPolicy == nil && (s.Type == v1.ServiceTypeNodePort || s.Type == v1.ServiceTypeLoadBalancer || s.Type == v1.ServiceTypeClusterIP) {
		s.InternalTrafficPolicy = ptrTo(v1.ServiceInternalTrafficPolicyCluster)
	}
	if s.Type == v1.ServiceTypeLoadBalancer {
		if s.AllocateLoadBalancerNodePorts == nil {
			s.AllocateLoadBalancerNodePorts = ptrTo(true)
		}
		for i, ing := range svc.Status.LoadBalancer.Ingress {
			if ing.IP != "" && ing.IPMode == nil {
				svc.Status.LoadBalancer.Ingress[i].IPMode = ptrTo(v1.LoadBalancerIPModeVIP)
			}
		}
	}
}

// defaultReplicationController: the selector and the labels default to the
// template's labels.
func defaultReplicationController(rc *v1.ReplicationController) {
	if rc.Spec.Template != nil && rc.Spec.Template.Labels != nil {
		if len(rc.Spec.Selector) == 0 {
			rc.Spec.Selector = copyStringMap(rc.Spec.Template.Labels)
		}
		if len(rc.Labels) == 0 {
			rc.Labels = copyStringMap(rc.Spec.Template.Labels)
		}
	}
	if rc.Spec.Replicas == nil {
		rc.Spec.Replicas = ptrTo[int32](1)
	}
	defaultPodTemplate(rc.Spec.Template)
}

func copyStringMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func defaultReplicaSet(rs *appsv1.ReplicaSet) {
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = ptrTo[int32](1)
	}
	defaultPodTemplate(&rs.Spec.Template)
}

func defaultStatefulSet(ss *appsv1.StatefulSet) {
	s := &ss.Spec
	if s.PodManagementPolicy == "" {
		s.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if s.UpdateStrategy.RollingUpdate == nil {
			s.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if s.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && s.UpdateStrategy.RollingUpdate != nil {
		if s.UpdateStrategy.RollingUpdate.Partition == nil {
			s.UpdateStrategy.RollingUpdate.Partition = ptrTo[int32](0)
		}
		// MaxUnavailableStatefulSet is on by default in 1.37.
		if s.UpdateStrategy.RollingUpdate.MaxUnavailable == nil {
			s.UpdateStrategy.RollingUpdate.MaxUnavailable = ptrTo(intstr.FromInt32(1))
		}
	}
	if s.PersistentVolumeClaimRetentionPolicy == nil {
		s.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if s.Replicas == nil {
		s.Replicas = ptrTo[int32](1)
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptrTo[int32](10)
	}
	defaultPodTemplate(&s.Template)
	for i := range s.VolumeClaimTemplates {
		defaultPersistentVolumeClaim(&s.VolumeClaimTemplates[i])
	}
}

func defaultDaemonSet(ds *appsv1.DaemonSet) {
	u := &ds.Spec.UpdateStrategy
	if u.Type == "" {
		u.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if u.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if u.RollingUpdate == nil {
			u.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if u.RollingUpdate.MaxUnavailable == nil {
			u.RollingUpdate.MaxUnavailable = ptrTo(intstr.FromInt32(1))
		}
		if u.RollingUpdate.MaxSurge == nil {
			u.RollingUpdate.MaxSurge = ptrTo(intstr.FromInt32(0))
		}
	}
	if ds.Spec.RevisionHistoryLimit == nil {
		ds.Spec.RevisionHistoryLimit = ptrTo[int32](10)
	}
	defaultPodTemplate(&ds.Spec.Template)
}

func defaultStorageClass(sc *storagev1.StorageClass) {
	if sc.ReclaimPolicy == nil {
		sc.ReclaimPolicy = ptrTo(v1.PersistentVolumeReclaimDelete)
	}
	if sc.VolumeBindingMode == nil {
		sc.VolumeBindingMode = ptrTo(storagev1.VolumeBindingImmediate)
	}
}

func defaultCSIDriver(d *storagev1.CSIDriver) {
	s := &d.Spec
	if s.AttachRequired == nil {
		s.AttachRequired = ptrTo(true)
	}
	if s.PodInfoOnMount == nil {
		s.PodInfoOnMount = ptrTo(false)
	}
	if s.StorageCapacity == nil {
		s.StorageCapacity = ptrTo(false)
	}
	if s.FSGroupPolicy == nil {
		s.FSGroupPolicy = ptrTo(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
	}
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = append(s.VolumeLifecycleModes, storagev1.VolumeLifecyclePersistent)
	}
	if s.RequiresRepublish == nil {
		s.RequiresRepublish = ptrTo(false)
	}
	// SELinuxMountReadWriteOncePod: GA, locked on.
	if s.SELinuxMount == nil {
		s.SELinuxMount = ptrTo(false)
	}
	// VolumeLimitScaling: beta, on by default in 1.37.
	if s.PreventPodSchedulingIfMissing == nil {
		s.PreventPodSchedulingIfMissing = ptrTo(false)
	}
}

func defaultVolumeAttachment(va *storagev1.VolumeAttachment) {
	if va.Spec.Source.InlineVolumeSpec != nil {
		roundResourceList(va.Spec.Source.InlineVolumeSpec.Capacity)
	}
}

func defaultPriorityClass(pc *schedulingv1.PriorityClass) {
	if pc.PreemptionPolicy == nil {
		pc.PreemptionPolicy = ptrTo(v1.PreemptLowerPriority)
	}
}
