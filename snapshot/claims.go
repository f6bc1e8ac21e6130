package snapshot

// The resourceclaim controller's part: claims generated from templates,
// for pods and (DRAWorkloadResourceClaims) for PodGroups.

import (
	"maps"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// generateTemplateClaims plays the resourceclaim controller for pods whose
// spec.resourceClaims name a ResourceClaimTemplate and whose
// status.resourceClaimStatuses has no entry for it: it creates the claim
// from the template (generated name `<pod>-<claim>-xxxxx`, the pod as
// controlling owner, the pod-claim-name annotation) and records it in the
// pod's status, as the controller does before the scheduler ever sees the
// pod. The scheduler itself never creates such claims; without this, a
// snapshot written by hand (or a pod captured in the instant before the
// controller ran) would leave the pod gated by DynamicResources
// ("ResourceClaim not created yet") for want of a controller schedtui does
// not run. A pod whose template is missing is left alone and stays gated,
// as it would in the cluster; the report says so.
//
// With DRAWorkloadResourceClaims, a PodGroup's spec.resourceClaims entry
// naming a template gets the group's claim first (generatePodGroupClaims),
// and a member's entry matching it (same name and template) is not given
// a claim of its own: the controller records the group's claim in the
// member's status, as every member shares it.
func (l *Loader) generateTemplateClaims() {
	groups := l.generatePodGroupClaims()
	for _, pod := range l.cluster.Pods {
		if pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
			continue
		}
		for _, pc := range pod.Spec.ResourceClaims {
			if pc.ResourceClaimTemplateName == nil || hasClaimStatus(pod, pc.Name) {
				continue
			}
			at := l.originOf(pod)
			if pg := groups[groupKey(pod)]; pg != nil {
				if ref, err := resourceclaim.BindTo(pod, pg, &pc); err == nil && ref.Resource == "podgroups" {
					name, _, err := resourceclaim.NameFromPodGroup(pg, &schedulingv1beta1.PodGroupResourceClaim{Name: pc.Name, ResourceClaimTemplateName: pc.ResourceClaimTemplateName})
					if err != nil || name == nil {
						// The group's template is missing (reported
						// with the PodGroup): the member waits too.
						continue
					}
					pod.Status.ResourceClaimStatuses = append(pod.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: name})
					continue
				}
			}
			isTrue := true
			name, ok := l.generateClaim(at, "Pod", pc.Name, *pc.ResourceClaimTemplateName, metav1.OwnerReference{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: &isTrue,
			}, pod.Namespace, "the pod waits for it")
			if !ok {
				continue
			}
			pod.Status.ResourceClaimStatuses = append(pod.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: &name})
		}
	}
}

func hasClaimStatus(pod *v1.Pod, name string) bool {
	for _, s := range pod.Status.ResourceClaimStatuses {
		if s.Name == name {
			return true
		}
	}
	return false
}

func (l *Loader) findTemplate(namespace, name string) *resourcev1.ResourceClaimTemplate {
	for _, t := range l.cluster.ResourceClaimTemplates {
		if t.Namespace == namespace && t.Name == name {
			return t
		}
	}
	return nil
}

// generateClaim creates the claim of owner's entry claimName from the
// template of that name in namespace, reporting at at when the template is
// missing (waits says who waits for it then); the claim's name, ok false
// when it was not made.
func (l *Loader) generateClaim(at origin, kind, claimName, template string, owner metav1.OwnerReference, namespace, waits string) (string, bool) {
	tmpl := l.findTemplate(namespace, template)
	if tmpl == nil {
		restore := l.reportingAt(at)
		l.report.Warnf(at.file, at.line, describe(kind, namespace, owner.Name), "spec.resourceClaims",
			"ResourceClaimTemplate %s/%s not found: no claim is generated for %q, and %s", namespace, template, claimName, waits)
		restore()
		return "", false
	}
	return l.addGeneratedClaim(newClaimFromTemplate(namespace, owner.Name, claimName, owner, tmpl), at), true
}

// addGeneratedClaim names claim as the API server names a generated one,
// stores it and returns its name.
func (l *Loader) addGeneratedClaim(claim *resourcev1.ResourceClaim, at origin) string {
	claim.Name = l.generateName(claim.GenerateName, at)
	claim.UID = deriveUID("ResourceClaim", claim.Namespace, claim.Name)
	l.names[objKey{"ResourceClaim", claim.Namespace, claim.Name}] = at
	l.cluster.ResourceClaims = append(l.cluster.ResourceClaims, claim)
	return claim.Name
}

// newClaimFromTemplate is the claim the resourceclaim controller creates
// for the entry claimName of owner (a pod, or a PodGroup: handleClaim,
// handlePodGroupClaim), before the API server names it: generateName
// `<owner>-<claim>-`, both truncated in proportion past 57 characters.
func newClaimFromTemplate(namespace, ownerName, claimName string, owner metav1.OwnerReference, tmpl *resourcev1.ResourceClaimTemplate) *resourcev1.ResourceClaim {
	annotations := maps.Clone(tmpl.Spec.ObjectMeta.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[resourcev1.PodResourceClaimAnnotation] = claimName
	generateName := ownerName + "-" + claimName + "-"
	const maxBaseLen = 57
	if len(generateName) > maxBaseLen {
		generateName = ownerName[0:len(ownerName)*maxBaseLen/len(generateName)] + "-" +
			claimName[0:len(claimName)*maxBaseLen/len(generateName)]
	}
	c := &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       namespace,
			GenerateName:    generateName,
			OwnerReferences: []metav1.OwnerReference{owner},
			Annotations:     annotations,
			Labels:          maps.Clone(tmpl.Spec.ObjectMeta.Labels),
		},
		Spec: *tmpl.Spec.Spec.DeepCopy(),
	}
	c.SetGroupVersionKind(resourcev1.SchemeGroupVersion.WithKind("ResourceClaim"))
	apiserver.Default(c)
	return c
}

// generatePodGroupClaims plays the controller's PodGroup half
// (handlePodGroupClaim) when DRAWorkloadResourceClaims is on: each
// spec.resourceClaims entry naming a template without an entry in the
// group's status.resourceClaimStatuses gets its claim, generated as
// `<podgroup>-<claim>-xxxxx` (both truncated in proportion past 57
// characters), the PodGroup its controlling owner, the pod-claim-name
// annotation, and recorded in the group's status. It returns the
// PodGroups by namespace/name (none with the gate off).
func (l *Loader) generatePodGroupClaims() map[string]*schedulingv1beta1.PodGroup {
	if !l.validation.DRAWorkloadResourceClaims {
		return nil
	}
	groups := map[string]*schedulingv1beta1.PodGroup{}
	for _, pg := range l.cluster.PodGroups {
		groups[pg.Namespace+"/"+pg.Name] = pg
		for _, gc := range pg.Spec.ResourceClaims {
			if gc.ResourceClaimTemplateName == nil || hasGroupClaimStatus(pg, gc.Name) {
				continue
			}
			at := l.originOf(pg)
			isTrue := true
			name, ok := l.generateClaim(at, "PodGroup", gc.Name, *gc.ResourceClaimTemplateName, metav1.OwnerReference{
				APIVersion: schedulingv1beta1.SchemeGroupVersion.String(), Kind: "PodGroup", Name: pg.Name, UID: pg.UID, Controller: &isTrue,
			}, pg.Namespace, "the group's members wait for it")
			if !ok {
				continue
			}
			pg.Status.ResourceClaimStatuses = append(pg.Status.ResourceClaimStatuses, schedulingv1beta1.PodGroupResourceClaimStatus{Name: gc.Name, ResourceClaimName: &name})
		}
	}
	return groups
}

func hasGroupClaimStatus(pg *schedulingv1beta1.PodGroup, name string) bool {
	for _, s := range pg.Status.ResourceClaimStatuses {
		if s.Name == name {
			return true
		}
	}
	return false
}

// groupKey is the namespace/name of pod's PodGroup ("" for none).
func groupKey(pod *v1.Pod) string {
	if pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil {
		return ""
	}
	return pod.Namespace + "/" + *pod.Spec.SchedulingGroup.PodGroupName
}
