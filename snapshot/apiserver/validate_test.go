package apiserver

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func resources(kv ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// TestPodLevelResourcesAgainstContainers: the API server's checks of a
// pod's spec.resources against its containers' (the messages are those
// k8s.io/kubernetes v1.37.1's ValidatePodSpec gives for the same specs).
func TestPodLevelResourcesAgainstContainers(t *testing.T) {
	container := func(req, lim v1.ResourceList) v1.Container {
		return v1.Container{Name: "c", Resources: v1.ResourceRequirements{Requests: req, Limits: lim}}
	}
	always := v1.ContainerRestartPolicyAlways
	sidecar := container(resources("cpu", "600m"), nil)
	sidecar.RestartPolicy = &always
	for _, tc := range []struct {
		name       string
		pod        v1.ResourceRequirements
		containers []v1.Container
		inits      []v1.Container
		want       []string
	}{{
		name:       "requests below the containers' sum",
		pod:        v1.ResourceRequirements{Requests: resources("cpu", "1", "memory", "1Gi")},
		containers: []v1.Container{container(resources("cpu", "600m", "memory", "1Gi"), nil), container(resources("cpu", "600m"), nil)},
		want:       []string{`spec.resources.requests.cpu: Invalid value: "1": must be greater than or equal to aggregate container requests of 1200m`},
	}, {
		name:       "an init container's request counts alone",
		pod:        v1.ResourceRequirements{Requests: resources("cpu", "1")},
		containers: []v1.Container{container(resources("cpu", "500m"), nil)},
		inits:      []v1.Container{container(resources("cpu", "2"), nil)},
		want:       []string{`spec.resources.requests.cpu: Invalid value: "1": must be greater than or equal to aggregate container requests of 2`},
	}, {
		name:       "a sidecar's request adds to the containers'",
		pod:        v1.ResourceRequirements{Requests: resources("cpu", "1")},
		containers: []v1.Container{container(resources("cpu", "500m"), nil)},
		inits:      []v1.Container{sidecar},
		want:       []string{`spec.resources.requests.cpu: Invalid value: "1": must be greater than or equal to aggregate container requests of 1100m`},
	}, {
		name:       "a container's limit above the pod's",
		pod:        v1.ResourceRequirements{Limits: resources("cpu", "1", "memory", "1Gi")},
		containers: []v1.Container{container(nil, resources("cpu", "2", "memory", "512Mi")), container(nil, resources("memory", "2Gi"))},
		want: []string{`spec.resources.containers[0].cpu.limits: Invalid value: "2": must be less than or equal to pod limits of 1`,
			`spec.resources.containers[1].memory.limits: Invalid value: "2Gi": must be less than or equal to pod limits of 1Gi`},
	}, {
		name:       "requests above limits, and below the containers'",
		pod:        v1.ResourceRequirements{Requests: resources("cpu", "2"), Limits: resources("cpu", "1")},
		containers: []v1.Container{container(resources("cpu", "3"), resources("cpu", "3"))},
		want: []string{`spec.resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`,
			`spec.resources.requests.cpu: Invalid value: "2": must be greater than or equal to aggregate container requests of 3`,
			`spec.resources.containers[0].cpu.limits: Invalid value: "3": must be less than or equal to pod limits of 1`},
	}, {
		name:       "only cpu, memory and hugepages at pod level",
		pod:        v1.ResourceRequirements{Requests: resources("cpu", "1", "ephemeral-storage", "1Gi")},
		containers: []v1.Container{container(resources("cpu", "2", "example.com/gpu", "1"), resources("example.com/gpu", "1"))},
		want: []string{`spec.resources.requests.ephemeral-storage: Unsupported value: "ephemeral-storage": supported values: "cpu", "hugepages-", "memory"`,
			`spec.resources.requests.cpu: Invalid value: "1": must be greater than or equal to aggregate container requests of 2`},
	}, {
		name:       "resources the pod does not name, and limits of init containers, are the containers' own",
		pod:        v1.ResourceRequirements{Requests: resources("memory", "1Gi"), Limits: resources("cpu", "1")},
		containers: []v1.Container{container(resources("cpu", "1500m", "memory", "1Gi"), nil)},
		inits:      []v1.Container{container(nil, resources("cpu", "2"))},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{Spec: v1.PodSpec{Containers: tc.containers, InitContainers: tc.inits, Resources: &tc.pod}}
			var got []string
			for _, err := range Validate(pod, ValidationOptions{}) {
				got = append(got, err.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
