package imagelocality

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func containers(images ...string) []v1.Container {
	var cs []v1.Container
	for _, img := range images {
		cs = append(cs, v1.Container{Image: img})
	}
	return cs
}

func image(sizeMB int64, names ...string) v1.ContainerImage {
	return v1.ContainerImage{Names: names, SizeBytes: sizeMB * mb}
}

func makeImageNode(name string, images ...v1.ContainerImage) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Images: images}}
}

func TestScore(t *testing.T) {
	test40250 := v1.PodSpec{Containers: containers("gcr.io/40", "gcr.io/250")}
	test40300 := v1.PodSpec{Containers: containers("gcr.io/40", "gcr.io/300")}
	testMinMax := v1.PodSpec{Containers: containers("gcr.io/10", "gcr.io/4000")}
	test300600900 := v1.PodSpec{Containers: containers("gcr.io/300", "gcr.io/600", "gcr.io/900")}
	test3040 := v1.PodSpec{Containers: containers("gcr.io/30", "gcr.io/40")}
	testImageVolume := v1.PodSpec{
		Containers: containers("gcr.io/30"),
		Volumes:    []v1.Volume{{Name: "imageVolume", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "gcr.io/300"}}}},
	}
	test30300AsContainers := v1.PodSpec{Containers: containers("gcr.io/30", "gcr.io/300")}
	test30Init300 := v1.PodSpec{Containers: containers("gcr.io/30"), InitContainers: containers("gcr.io/300")}

	node403002000 := []v1.ContainerImage{
		image(40, "gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"),
		image(300, "gcr.io/300:latest", "gcr.io/300:v1"),
		image(2000, "gcr.io/2000:latest"),
	}
	node25010 := []v1.ContainerImage{image(250, "gcr.io/250:latest"), image(10, "gcr.io/10:latest", "gcr.io/10:v1")}
	node60040900 := []v1.ContainerImage{image(600, "gcr.io/600:latest"), image(40, "gcr.io/40:latest"), image(900, "gcr.io/900:latest")}
	node300600900 := []v1.ContainerImage{image(300, "gcr.io/300:latest"), image(600, "gcr.io/600:latest"), image(900, "gcr.io/900:latest")}
	node400030 := []v1.ContainerImage{image(4000, "gcr.io/4000:latest"), image(30, "gcr.io/30:latest")}
	node203040 := []v1.ContainerImage{image(20, "gcr.io/20:latest"), image(30, "gcr.io/30:latest"), image(40, "gcr.io/40:latest")}

	tests := []struct {
		name  string
		pod   v1.PodSpec
		nodes []*v1.Node
		want  framework.NodeScoreList
	}{
		{
			// node2: 100 * (250M/2 - 23M) / (2000M - 23M) = 5; node1: 40M/2 < 23M.
			name:  "two images spread on two nodes, prefer the larger image one",
			pod:   test40250,
			nodes: []*v1.Node{makeImageNode("node1", node403002000...), makeImageNode("node2", node25010...)},
			want:  framework.NodeScoreList{{Name: "node1", Score: 0}, {Name: "node2", Score: 5}},
		},
		{
			// node1: 100 * ((40M + 300M)/2 - 23M) / (2000M - 23M) = 7.
			name:  "two images on one node, prefer this node",
			pod:   test40300,
			nodes: []*v1.Node{makeImageNode("node1", node403002000...), makeImageNode("node2", node25010...)},
			want:  framework.NodeScoreList{{Name: "node1", Score: 7}, {Name: "node2", Score: 0}},
		},
		{
			name:  "if exceed limit, use limit",
			pod:   testMinMax,
			nodes: []*v1.Node{makeImageNode("node1", node400030...), makeImageNode("node2", node25010...)},
			want:  framework.NodeScoreList{{Name: "node1", Score: 100}, {Name: "node2", Score: 0}},
		},
		{
			// node1: 100 * (4000M/3 - 23M) / (2000M - 23M) = 66.
			name:  "if exceed limit, use limit (with node which has no images present)",
			pod:   testMinMax,
			nodes: []*v1.Node{makeImageNode("node1", node400030...), makeImageNode("node2", node25010...), makeImageNode("node3")},
			want:  framework.NodeScoreList{{Name: "node1", Score: 66}, {Name: "node2", Score: 0}, {Name: "node3", Score: 0}},
		},
		{
			// node1: 100 * (600M*2/3 + 900M*2/3 - 23M) / (3000M - 23M) = 32;
			// node2: 100 * (300M/3 + 600M*2/3 + 900M*2/3 - 23M) / (3000M - 23M) = 36.
			name:  "pod with multiple large images, node2 is preferred",
			pod:   test300600900,
			nodes: []*v1.Node{makeImageNode("node1", node60040900...), makeImageNode("node2", node300600900...), makeImageNode("node3")},
			want:  framework.NodeScoreList{{Name: "node1", Score: 32}, {Name: "node2", Score: 36}, {Name: "node3", Score: 0}},
		},
		{
			// node1: 100 * (30M + 40M/2 - 23M) / (2000M - 23M) = 1.
			name:  "pod with multiple small images",
			pod:   test3040,
			nodes: []*v1.Node{makeImageNode("node1", node203040...), makeImageNode("node2", node400030...)},
			want:  framework.NodeScoreList{{Name: "node1", Score: 1}, {Name: "node2", Score: 0}},
		},
		{
			// node1: 100 * (300M/2 - 23M) / (2000M - 23M) = 6.
			name:  "pod with ImageVolume",
			pod:   testImageVolume,
			nodes: []*v1.Node{makeImageNode("node1", node300600900...), makeImageNode("node2", node400030...)},
			want:  framework.NodeScoreList{{Name: "node1", Score: 6}, {Name: "node2", Score: 0}},
		},
		{
			name:  "same images as ImageVolume pod but as regular container images",
			pod:   test30300AsContainers,
			nodes: []*v1.Node{makeImageNode("node1", node300600900...), makeImageNode("node2", node400030...)},
			want:  framework.NodeScoreList{{Name: "node1", Score: 6}, {Name: "node2", Score: 0}},
		},
		{
			name:  "include InitContainers",
			pod:   test30Init300,
			nodes: []*v1.Node{makeImageNode("node1", node403002000...), makeImageNode("node2", node203040...)},
			want:  framework.NodeScoreList{{Name: "node1", Score: 6}, {Name: "node2", Score: 0}},
		},
		{
			// The image is found under a tagged name only when the pod asks
			// for that tag: "gcr.io/300:v1" matches, "gcr.io/40:v2" does not.
			name:  "tags must match exactly",
			pod:   v1PodSpec(containers("gcr.io/300:v1", "gcr.io/40:v2")),
			nodes: []*v1.Node{makeImageNode("node1", node403002000...), makeImageNode("node2")},
			want:  framework.NodeScoreList{{Name: "node1", Score: 6}, {Name: "node2", Score: 0}},
		},
		{
			// 3 slots (2 containers + 1 volume): 100*(1000M - 23M)/(3000M - 23M) = 32.
			name: "an image volume counts as a slot even if present nowhere",
			pod: v1.PodSpec{
				Containers: containers("gcr.io/big", "gcr.io/none"),
				Volumes:    []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "gcr.io/missing"}}}},
			},
			nodes: []*v1.Node{makeImageNode("node1", image(1000, "gcr.io/big:latest"))},
			want:  framework.NodeScoreList{{Name: "node1", Score: 32}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := frameworktest.NewHandle(tt.nodes, nil)
			p, err := New(nil, h)
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*ImageLocality)
			pod := &v1.Pod{Spec: tt.pod}
			var got framework.NodeScoreList
			for _, n := range tt.nodes {
				ni, err := h.Snapshot().Get(n.Name)
				if err != nil {
					t.Fatal(err)
				}
				score, s := pl.Score(context.Background(), framework.NewCycleState(), pod, ni)
				if !s.IsSuccess() {
					t.Fatalf("Score: %v", s)
				}
				got = append(got, framework.NodeScore{Name: n.Name, Score: score})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("scores = %v, want %v", got, tt.want)
			}
		})
	}
}

func v1PodSpec(cs []v1.Container) v1.PodSpec { return v1.PodSpec{Containers: cs} }

// The spread fraction is computed before multiplying, size*(n/total), and
// not (size*n)/total as the spec notes write it: float rounding differs
// and int64 truncation exposes it (90*(7/10) = 62.99… → 62, 90*7/10 = 63).
func TestScaledImageScoreOrder(t *testing.T) {
	cases := []struct {
		size  int64
		n, of int
		want  int64
	}{
		{size: 90, n: 7, of: 10, want: 62},
		{size: 55, n: 3, of: 11, want: 14},
		{size: 3, n: 1, of: 3, want: 1},
		{size: 100, n: 2, of: 2, want: 100},
		{size: 100, n: 1, of: 0, want: 0},
	}
	for _, c := range cases {
		if got := scaledImageScore(&framework.ImageStateSummary{Size: c.size, NumNodes: c.n}, c.of); got != c.want {
			t.Errorf("scaled(%d, %d/%d) = %d, want %d", c.size, c.n, c.of, got, c.want)
		}
	}
}

func TestCalculatePriority(t *testing.T) {
	cases := []struct {
		sum   int64
		count int
		want  int64
	}{
		{sum: 0, count: 1, want: 0},
		{sum: minThreshold, count: 1, want: 0},
		{sum: maxContainerThreshold, count: 1, want: 100},
		{sum: 5 * maxContainerThreshold, count: 2, want: 100},
		{sum: 500 * mb, count: 1, want: 100 * (477 * mb) / (977 * mb)},
		{sum: 0, count: 0, want: 0},
	}
	for _, c := range cases {
		if got := calculatePriority(c.sum, c.count); got != c.want {
			t.Errorf("calculatePriority(%d, %d) = %d, want %d", c.sum, c.count, got, c.want)
		}
	}
}

func TestNormalizedImageName(t *testing.T) {
	digest := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return "sha256:" + hex.EncodeToString(h[:])
	}
	cases := []struct{ in, want string }{
		{"root", "root:latest"},
		{"gcr.io:5000/root", "gcr.io:5000/root:latest"},
		{"root:tag", "root:tag"},
		{"root@" + digest("root"), "root@" + digest("root")},
		{"", ":latest"},
	}
	for _, c := range cases {
		if got := normalizedImageName(c.in); got != c.want {
			t.Errorf("normalizedImageName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
