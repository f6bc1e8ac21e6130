package snapshot

// The resourceclaim controller's part: claims generated from templates.

import (
	"maps"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
func (l *Loader) generateTemplateClaims() {
	for _, pod := range l.cluster.Pods {
		if pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
			continue
		}
		for _, pc := range pod.Spec.ResourceClaims {
			if pc.ResourceClaimTemplateName == nil || hasClaimStatus(pod, pc.Name) {
				continue
			}
			tmpl := l.findTemplate(pod.Namespace, *pc.ResourceClaimTemplateName)
			at := l.originOf(pod)
			if tmpl == nil {
				restore := l.reportingAt(at)
				l.report.Warnf(at.file, at.line, describe("Pod", pod.Namespace, pod.Name), "spec.resourceClaims",
					"ResourceClaimTemplate %s/%s not found: no claim is generated for %q, and the pod waits for it", pod.Namespace, *pc.ResourceClaimTemplateName, pc.Name)
				restore()
				continue
			}
			claim := claimFromTemplate(pod, pc.Name, tmpl)
			claim.Name = l.generateName(claim.GenerateName, at)
			claim.UID = deriveUID("ResourceClaim", claim.Namespace, claim.Name)
			l.names[objKey{"ResourceClaim", claim.Namespace, claim.Name}] = at
			l.cluster.ResourceClaims = append(l.cluster.ResourceClaims, claim)
			name := claim.Name
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

// claimFromTemplate is the claim the resourceclaim controller creates
// (pkg/controller/resourceclaim handleClaim), before the API server names it.
func claimFromTemplate(pod *v1.Pod, podClaim string, tmpl *resourcev1.ResourceClaimTemplate) *resourcev1.ResourceClaim {
	annotations := maps.Clone(tmpl.Spec.ObjectMeta.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[resourcev1.PodResourceClaimAnnotation] = podClaim
	generateName := pod.Name + "-" + podClaim + "-"
	const maxBaseLen = 57
	if len(generateName) > maxBaseLen {
		// Both parts truncated in proportion, as the controller does.
		generateName = pod.Name[0:len(pod.Name)*maxBaseLen/len(generateName)] + "-" +
			podClaim[0:len(podClaim)*maxBaseLen/len(generateName)]
	}
	isTrue := true
	c := &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    pod.Namespace,
			GenerateName: generateName,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: &isTrue,
			}},
			Annotations: annotations,
			Labels:      maps.Clone(tmpl.Spec.ObjectMeta.Labels),
		},
		Spec: *tmpl.Spec.Spec.DeepCopy(),
	}
	c.SetGroupVersionKind(resourcev1.SchemeGroupVersion.WithKind("ResourceClaim"))
	apiserver.Default(c)
	return c
}
