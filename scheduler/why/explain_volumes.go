package why

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/storage/volume"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/record"
)

// The volume plugins (VolumeBinding, VolumeZone, VolumeRestrictions,
// NodeVolumeLimits): the pod's claims, their storage classes and PVs, who
// else uses them, and the CSI drivers' limits.

var (
	volumeBindingExplainer = explainer{
		purpose: "checks the pod's PVCs can bind to PVs reachable from the node (or be provisioned there).",
		short:   "Volume",
		detail:  volumesDetail,
	}
	volumeZoneExplainer = explainer{
		purpose: "rejects nodes outside the zones of the pod's bound PVs.",
		detail:  volumesDetail,
	}
	volumeRestrictionsExplainer = explainer{
		purpose: "rejects nodes where the pod's volumes conflict with volumes already in use (ReadWriteOncePod, some disk types).",
		detail:  volumesDetail,
		fixes:   volumeRestrictionsFixes,
	}
	nodeVolumeLimitsExplainer = explainer{
		purpose: "rejects nodes that would exceed a CSI driver's attachable volume limit.",
		detail:  volumesDetail,
	}
)

// claims lists the pod's claims ("namespace/name"), generic ephemeral
// volumes included.
func claims(pod *v1.Pod) []string {
	var out []string
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, pod.Namespace+"/"+v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			out = append(out, pod.Namespace+"/"+pod.Name+"-"+v.Name)
		}
	}
	return out
}

// describeClaim names a claim, its storage class (with its binding mode
// and provisioner) and the PV it is bound to (with the PV's node affinity
// and zone labels).
func describeClaim(in Input, ref string) string {
	ns, name, _ := strings.Cut(ref, "/")
	objs := in.Sched.Objects()
	pvc, err := objs.PersistentVolumeClaim(ns, name)
	if err != nil {
		return "claim " + ref + " (not found)"
	}
	s := "claim " + ref
	class := ""
	if pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	if class != "" {
		s += ", storage class " + class
		if sc, err := objs.StorageClass(class); err == nil {
			mode := storagev1.VolumeBindingImmediate
			if sc.VolumeBindingMode != nil {
				mode = *sc.VolumeBindingMode
			}
			s += fmt.Sprintf(" (%s, %s)", sc.Provisioner, mode)
		} else {
			s += " (not found)"
		}
	} else {
		s += ", no storage class"
	}
	if pvc.Spec.VolumeName == "" {
		return s + ", unbound"
	}
	if metav1.HasAnnotation(pvc.ObjectMeta, volume.AnnBindCompleted) {
		s += ", bound to PV " + pvc.Spec.VolumeName
	} else {
		s += ", pre-bound to PV " + pvc.Spec.VolumeName + " (no " + volume.AnnBindCompleted + " annotation)"
	}
	pv, err := objs.PersistentVolume(pvc.Spec.VolumeName)
	if err != nil {
		return s + " (not found)"
	}
	var where []string
	if na := pv.Spec.NodeAffinity; na != nil && na.Required != nil {
		var terms []string
		for _, t := range na.Required.NodeSelectorTerms {
			terms = append(terms, NodeSelectorTermString(t))
		}
		where = append(where, "node affinity "+strings.Join(terms, " or "))
	}
	for _, k := range []string{v1.LabelTopologyZone, v1.LabelTopologyRegion, v1.LabelFailureDomainBetaZone, v1.LabelFailureDomainBetaRegion} {
		if v, ok := pv.Labels[k]; ok {
			where = append(where, k+"="+v)
		}
	}
	if pv.Spec.CSI != nil {
		where = append(where, "CSI driver "+pv.Spec.CSI.Driver)
	}
	if len(where) > 0 {
		s += " (" + strings.Join(where, "; ") + ")"
	}
	return s
}

// claimProblem is one sentence on a claim volume of the pod that stops
// the pod before any node is considered, with what to do: the claim does
// not exist, or it is pre-bound (spec.volumeName set, not annotated
// bind-completed). "" for any other volume.
func claimProblem(in Input, vol v1.Volume) string {
	var name string
	switch {
	case vol.PersistentVolumeClaim != nil:
		name = vol.PersistentVolumeClaim.ClaimName
	case vol.Ephemeral != nil:
		name = in.Pod.Name + "-" + vol.Name
	default:
		return ""
	}
	ref := in.Pod.Namespace + "/" + name
	pvc, err := in.Sched.Objects().PersistentVolumeClaim(in.Pod.Namespace, name)
	switch {
	case err != nil && vol.Ephemeral != nil:
		return fmt.Sprintf("claim %s of generic ephemeral volume %s does not exist yet: the ephemeral volume controller (kube-controller-manager) creates it from the volume's template, and the pod is retried when it is added; schedtui runs no controller, so add it to the snapshot", ref, vol.Name)
	case err != nil:
		// The hints name a near-named claim, proven, when there is one.
		return fmt.Sprintf("claim %s (volume %s) does not exist: create it, or correct the volume's claimName", ref, vol.Name)
	case pvc.Spec.VolumeName == "" || metav1.HasAnnotation(pvc.ObjectMeta, volume.AnnBindCompleted):
		return ""
	}
	s := fmt.Sprintf("claim %s names PV %s (spec.volumeName) but lacks the %s annotation: upstream treats it as pre-bound, not bound (an immediate claim, whatever its storage class's binding mode), and waits for the PV controller to complete the binding", ref, pvc.Spec.VolumeName, volume.AnnBindCompleted)
	pv, err := in.Sched.Objects().PersistentVolume(pvc.Spec.VolumeName)
	switch {
	case err != nil:
		return s + fmt.Sprintf(", which it never will: PV %s does not exist (create it, or clear the claim's spec.volumeName)", pvc.Spec.VolumeName)
	case pv.Spec.ClaimRef != nil && (pv.Spec.ClaimRef.Namespace != pvc.Namespace || pv.Spec.ClaimRef.Name != pvc.Name || pv.Spec.ClaimRef.UID != "" && pv.Spec.ClaimRef.UID != pvc.UID):
		return s + fmt.Sprintf(", which it never will: PV %s is bound to claim %s/%s (point the claim at another PV)", pv.Name, pv.Spec.ClaimRef.Namespace, pv.Spec.ClaimRef.Name)
	}
	return s + fmt.Sprintf(" (the pod is retried when the claim is updated); schedtui runs no PV controller: if the snapshot caught the binding midway, annotate the claim %s: \"yes\" as the controller would", volume.AnnBindCompleted)
}

// claimUsers lists the bound pods other than pod using claim ref.
func claimUsers(in Input, ref string) []string {
	var out []string
	for _, p := range in.Sched.Objects().Pods() {
		if p.UID == in.Pod.UID || p.Spec.NodeName == "" {
			continue
		}
		for _, c := range claims(p) {
			if c == ref {
				out = append(out, podRef(p)+" on "+p.Spec.NodeName)
			}
		}
	}
	return out
}

func volumesDetail(in Input, g group) string {
	// A claim that stops the pod before any node is considered (missing,
	// pre-bound) is all there is to say: the other claims are not the
	// reason.
	var problems []string
	for _, v := range in.Pod.Spec.Volumes {
		if s := claimProblem(in, v); s != "" {
			problems = append(problems, s)
		}
	}
	if len(problems) > 0 {
		return strings.Join(problems, "; ") + "."
	}
	var parts []string
	for _, c := range claims(in.Pod) {
		s := describeClaim(in, c)
		if g.plugin == names.VolumeRestrictions {
			if users := claimUsers(in, c); len(users) > 0 {
				s += ", in use by " + Names(users)
			}
		}
		parts = append(parts, s)
	}
	if g.plugin == names.NodeVolumeLimits {
		var b byValue
		for _, n := range g.nodes {
			if cn, err := in.Sched.Objects().CSINode(n); err == nil {
				for _, d := range cn.Spec.Drivers {
					if d.Allocatable != nil && d.Allocatable.Count != nil {
						b.add(fmt.Sprintf("%s allows %d volumes", d.Name, *d.Allocatable.Count), n)
					}
				}
			}
		}
		if len(b.order) > 0 {
			parts = append(parts, "CSINode limits: "+b.String())
		}
	}
	if len(parts) == 0 {
		if in.Refs.Filter == "" {
			return "the pod has no claim (in-tree volumes)."
		}
		return "the pod has no claim (in-tree volumes; see " + in.Refs.Filter + ")."
	}
	return strings.Join(parts, "; ") + "."
}

// volumeRestrictionsFixes removes the bound pods using the pod's claims.
func volumeRestrictionsFixes(in Input, _ record.Status, _ *framework.NodeInfo) [][]change {
	pod := in.Pod
	var alt []change
	for _, c := range claims(pod) {
		for _, p := range in.Sched.Objects().Pods() {
			if p.UID == pod.UID || p.Spec.NodeName == "" {
				continue
			}
			for _, pc := range claims(p) {
				if pc == c {
					alt = append(alt, removal(p))
				}
			}
		}
	}
	if len(alt) == 0 {
		return nil
	}
	return [][]change{alt}
}
