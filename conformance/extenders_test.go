package conformance

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/extendertest"
	"github.com/schedtui/schedtui/internal/scenario"
)

var numExtenderScenarios = flag.Int("extender-scenarios", 12, "generated scenarios per extender configuration (half of them preemption-biased)")

// managedResource is the extended resource the managedResources variant's
// extender manages (ignoredByScheduler): no node has it.
const managedResource = "example.com/foo"

// extenderVariant is one extender configuration of the suite; servers are
// the test extenders it calls (label prefixes ext-a.test, ext-b.test, ...),
// dead says a configured URL points where nothing listens.
type extenderVariant struct {
	name    string
	servers int
	// managed adds managedResource to every other pending pod.
	managed bool
	config  func(urls []string, dead string) []configv1.Extender
}

var extenderVariants = []extenderVariant{
	{name: "filter-prioritize", servers: 1, config: func(u []string, _ string) []configv1.Extender {
		return []configv1.Extender{{URLPrefix: u[0], FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 2}}
	}},
	{name: "cache-capable-ignorable-all-verbs", servers: 1, config: func(u []string, _ string) []configv1.Extender {
		return []configv1.Extender{{URLPrefix: u[0] + "/", FilterVerb: "filter", PrioritizeVerb: "prioritize", PreemptVerb: "preempt",
			Weight: 1, NodeCacheCapable: true, Ignorable: true}}
	}},
	{name: "two-extenders", servers: 2, config: func(u []string, _ string) []configv1.Extender {
		return []configv1.Extender{
			{URLPrefix: u[0], FilterVerb: "filter", PreemptVerb: "preempt", NodeCacheCapable: true, Ignorable: true},
			{URLPrefix: u[1], FilterVerb: "filter", PrioritizeVerb: "prioritize", PreemptVerb: "preempt", Weight: 5},
		}
	}},
	{name: "managed-resources", servers: 1, managed: true, config: func(u []string, _ string) []configv1.Extender {
		return []configv1.Extender{{URLPrefix: u[0], FilterVerb: "filter", PrioritizeVerb: "prioritize", PreemptVerb: "preempt", Weight: 1,
			NodeCacheCapable: true, ManagedResources: []configv1.ExtenderManagedResource{{Name: managedResource, IgnoredByScheduler: true}}}}
	}},
	{name: "unreachable-ignorable", config: func(_ []string, dead string) []configv1.Extender {
		return []configv1.Extender{{URLPrefix: dead, FilterVerb: "filter", PrioritizeVerb: "prioritize", PreemptVerb: "preempt", Weight: 1,
			Ignorable: true, HTTPTimeout: metav1.Duration{Duration: 2 * time.Second}}}
	}},
	{name: "unreachable", config: func(_ []string, dead string) []configv1.Extender {
		return []configv1.Extender{{URLPrefix: dead, FilterVerb: "filter", HTTPTimeout: metav1.Duration{Duration: 2 * time.Second}}}
	}},
}

// TestConformanceExtenders runs generated scenarios with each extender
// configuration against upstream's HTTPExtender, both sides calling the
// same test extenders (internal/extendertest), whose answers follow the
// labels given to the nodes here.
func TestConformanceExtenders(t *testing.T) {
	for _, v := range extenderVariants {
		t.Run(v.name, func(t *testing.T) {
			for i := 0; i < *numExtenderScenarios; i++ {
				seed := *firstSeed + int64(i)
				s := scenario.Generate(seed, scenario.Options{Preemption: i%2 == 1})
				s.Name = v.name + "/" + s.Name
				labelForExtenders(s, seed, v.servers)
				if v.managed {
					requestManaged(s)
				}
				var urls []string
				for j := 0; j < v.servers; j++ {
					srv := extendertest.Start(s.Cluster.Nodes)
					srv.Prefix = extenderPrefix(j)
					srv.FailMessage = fmt.Sprintf("ext-%c: node rejected", 'a'+j)
					srv.UnresolvableMessage = fmt.Sprintf("ext-%c: never here", 'a'+j)
					defer srv.Close()
					urls = append(urls, srv.URL())
				}
				dead, err := extendertest.UnreachableURL()
				if err != nil {
					t.Fatal(err)
				}
				runScenariosWith(t, []*scenario.Scenario{s}, &configv1.KubeSchedulerConfiguration{Extenders: v.config(urls, dead)}, nil)
			}
		})
	}
}

func extenderPrefix(j int) string { return fmt.Sprintf("ext-%c.test", 'a'+j) }

// labelForExtenders gives each node, for each test extender, a filter
// rule (pass, fail, unresolvable, both), a score 0..10 and, now and then,
// a preemption rule (deny, novictims).
func labelForExtenders(s *scenario.Scenario, seed int64, servers int) {
	r := rand.New(rand.NewPCG(uint64(seed), 0xe7e))
	for _, n := range s.Cluster.Nodes {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		for j := 0; j < servers; j++ {
			p := extenderPrefix(j)
			switch x := r.IntN(100); {
			case x < 15:
				n.Labels[p+"/filter"] = "fail"
			case x < 22:
				n.Labels[p+"/filter"] = "unresolvable"
			case x < 25:
				n.Labels[p+"/filter"] = "both"
			}
			n.Labels[p+"/score"] = strconv.Itoa(r.IntN(11))
			switch x := r.IntN(100); {
			case x < 15:
				n.Labels[p+"/preempt"] = "deny"
			case x < 18:
				n.Labels[p+"/preempt"] = "novictims"
			}
		}
	}
}

// requestManaged makes every other pending pod request managedResource.
func requestManaged(s *scenario.Scenario) {
	k := 0
	for _, p := range s.Cluster.Pods {
		if p.Spec.NodeName != "" || len(p.Spec.Containers) == 0 {
			continue
		}
		if k++; k%2 == 0 {
			continue
		}
		c := &p.Spec.Containers[0]
		if c.Resources.Requests == nil {
			c.Resources.Requests = v1.ResourceList{}
		}
		if c.Resources.Limits == nil {
			c.Resources.Limits = v1.ResourceList{}
		}
		c.Resources.Requests[managedResource] = resource.MustParse("1")
		c.Resources.Limits[managedResource] = resource.MustParse("1")
	}
}
