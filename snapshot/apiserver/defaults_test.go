package apiserver

import "testing"

func TestImageTag(t *testing.T) {
	for image, want := range map[string]string{
		"nginx": "latest", "nginx:1.2": "1.2", "nginx:latest": "latest", "reg:5000/nginx": "latest",
		"reg:5000/nginx:v1": "v1", "nginx@sha256:ab": "", "nginx:1@sha256:ab": "1",
	} {
		if got := imageTag(image); got != want {
			t.Errorf("%s: %q, want %q", image, got, want)
		}
	}
}
