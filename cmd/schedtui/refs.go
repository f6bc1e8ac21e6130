package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/schedtui/schedtui/scheduler/why"
)

// objectRef is what a command argument names, kubectl-style:
// pod/NS/NAME, pods/NS/NAME, po/NS/NAME, NS/NAME, NAME (the namespace
// from -n), and ds/, daemonset/ (daemonsets/, daemonset.apps/) and
// podgroup/ (podgroups/, podgroup.scheduling.k8s.io/) and
// compositepodgroup/ likewise.
type objectRef struct {
	daemonSet bool
	// podGroup: a PodGroup (scheduling.k8s.io), explained as a group;
	// with composite, a CompositePodGroup (compositepodgroup/NS/NAME).
	podGroup, composite bool
	// namespace is "" when the argument names none.
	namespace, name string
}

func isPodKind(kind string) bool {
	switch strings.ToLower(kind) {
	case "pod", "pods", "po":
		return true
	}
	return false
}

// isPodGroupKind: kubectl's names for PodGroups (the API declares no
// short name).
func isPodGroupKind(kind string) bool {
	switch strings.ToLower(kind) {
	case "podgroup", "podgroups", "podgroup.scheduling.k8s.io", "podgroups.scheduling.k8s.io":
		return true
	}
	return false
}

// isCompositePodGroupKind: kubectl's names for CompositePodGroups.
func isCompositePodGroupKind(kind string) bool {
	switch strings.ToLower(kind) {
	case "compositepodgroup", "compositepodgroups", "compositepodgroup.scheduling.k8s.io", "compositepodgroups.scheduling.k8s.io":
		return true
	}
	return false
}

// kind is the group kind the reference names.
func (r objectRef) kind() string {
	if r.composite {
		return "compositepodgroup"
	}
	return "podgroup"
}

// parseRef reads a pod, DaemonSet, PodGroup or CompositePodGroup
// reference.
func parseRef(arg string) (objectRef, error) {
	parts := strings.Split(arg, "/")
	var r objectRef
	rest := parts
	switch {
	case len(parts) >= 2 && isDaemonSetKind(parts[0]):
		r.daemonSet, rest = true, parts[1:]
	case len(parts) >= 2 && isPodGroupKind(parts[0]):
		r.podGroup, rest = true, parts[1:]
	case len(parts) >= 2 && isCompositePodGroupKind(parts[0]):
		r.podGroup, r.composite, rest = true, true, parts[1:]
	case len(parts) >= 2 && isPodKind(parts[0]):
		rest = parts[1:]
	case len(parts) == 3:
		return r, fmt.Errorf("%q: explain takes a pod (pod/NAMESPACE/NAME, NAMESPACE/NAME, NAME with -n), a DaemonSet (daemonset/NAMESPACE/NAME) or a PodGroup (podgroup/NAMESPACE/NAME), not a %s", arg, parts[0])
	}
	switch len(rest) {
	case 1:
		r.name = rest[0]
	case 2:
		r.namespace, r.name = rest[0], rest[1]
	default:
		return r, fmt.Errorf("%q is not a pod reference: use NAMESPACE/NAME, pod/NAMESPACE/NAME, or NAME with -n", arg)
	}
	if r.name == "" || (len(rest) == 2 && r.namespace == "") {
		return r, fmt.Errorf("%q is not a pod reference: the namespace or the name is empty", arg)
	}
	return r, nil
}

// namespaceFlags are kubectl's -n/--namespace and -A/--all-namespaces.
type namespaceFlags struct {
	namespace     string
	allNamespaces bool
}

func (f *namespaceFlags) register(cmd *cobra.Command, what string) {
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", "", what+" (default: the kubeconfig context's namespace on a live cluster, else default)")
	cmd.Flags().BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "every namespace")
}

// explicit reports whether -n was given.
func (f *namespaceFlags) explicit(cmd *cobra.Command) bool { return cmd.Flags().Changed("namespace") }

func (f *namespaceFlags) validate(cmd *cobra.Command) error {
	if f.allNamespaces && f.explicit(cmd) {
		return fmt.Errorf("-A/--all-namespaces and -n/--namespace %s contradict each other: give one", f.namespace)
	}
	if f.explicit(cmd) && f.namespace == "" {
		return fmt.Errorf("-n/--namespace needs a namespace name")
	}
	return nil
}

// resolve is the namespace a NAME without one is looked up in: -n, else
// on a live cluster the kubeconfig context's namespace (as kubectl), else
// "default".
func (f *namespaceFlags) resolve(cmd *cobra.Command, src *sourceFlags) string {
	if f.explicit(cmd) {
		return f.namespace
	}
	if m, err := src.sourceKind(); err == nil && m == sourceLive {
		return contextNamespace(src.kubeconfig, src.context)
	}
	return "default"
}

// contextNamespace is the namespace of the kubeconfig context kubectl
// would use ("default" when it names none).
var contextNamespace = func(kubeconfig, context string) string {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	if ns, _, err := cc.Namespace(); err == nil && ns != "" {
		return ns
	}
	return "default"
}

// inNamespace reports whether "namespace/name" is in ns ("" is every
// namespace).
func inNamespace(key, ns string) bool {
	return ns == "" || strings.HasPrefix(key, ns+"/")
}

// didYouMean suggests known "namespace/name" keys close to the missing
// one: the same name in another namespace, else the names within a small
// edit distance (the same namespace first); only the closest, at most 3.
func didYouMean(missing string, known []string) string {
	ns, name, _ := strings.Cut(missing, "/")
	type cand struct {
		key  string
		rank int
	}
	var cands []cand
	seen := map[string]bool{}
	for _, k := range known {
		if seen[k] || k == missing {
			continue
		}
		seen[k] = true
		kns, kname, _ := strings.Cut(k, "/")
		d := why.EditDistance(name, kname)
		limit := 2
		if len(name) <= 4 {
			limit = 1
		}
		switch {
		case kname == name:
			cands = append(cands, cand{k, 0})
		case d <= limit && kns == ns:
			cands = append(cands, cand{k, d})
		case d <= limit:
			cands = append(cands, cand{k, d + 2})
		}
	}
	if len(cands) == 0 {
		return ""
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].rank != cands[j].rank {
			return cands[i].rank < cands[j].rank
		}
		return cands[i].key < cands[j].key
	})
	var out []string
	for i := 0; i < len(cands) && i < 3; i++ {
		if cands[i].rank > cands[0].rank {
			break // only the closest
		}
		out = append(out, cands[i].key)
	}
	if len(out) == 1 {
		return "; did you mean " + out[0] + "?"
	}
	return "; did you mean one of " + strings.Join(out, ", ") + "?"
}
