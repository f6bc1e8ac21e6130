package live

import (
	"fmt"
	"net/http"
	"strings"
)

// ReadOnly wraps a transport so that every request that could change the
// cluster is refused before it leaves the process: only GET and HEAD
// (get, list, watch, discovery, version) pass, and not the GET
// subresources that act on a pod or a node (exec, attach, portforward,
// proxy) or any connection upgrade. schedtui reads clusters; it never
// creates, updates, patches or deletes anything.
func ReadOnly(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &readOnly{next: rt}
}

// ReadOnlyExceptBindings is ReadOnly plus the one write --bind needs:
// POST to a pod's binding subresource. Nothing else that writes passes.
func ReadOnlyExceptBindings(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &readOnly{next: rt, bindings: true}
}

type readOnly struct {
	next     http.RoundTripper
	bindings bool
}

// ReadOnlyError is the error of a refused request.
type ReadOnlyError struct {
	Method, Path, Why string
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("schedtui is read-only: refusing %s %s (%s)", e.Method, e.Path, e.Why)
}

// actingSubresources are reached with GET but act on a pod, a node or a
// service rather than read an object.
var actingSubresources = map[string]bool{"exec": true, "attach": true, "portforward": true, "proxy": true}

func checkReadOnly(req *http.Request) error {
	path := ""
	if req.URL != nil {
		path = req.URL.Path
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	switch method {
	case http.MethodGet, http.MethodHead:
	default:
		return &ReadOnlyError{Method: method, Path: path, Why: "only GET, LIST and WATCH requests are allowed"}
	}
	if req.Header.Get("Upgrade") != "" || strings.EqualFold(req.Header.Get("Connection"), "upgrade") {
		return &ReadOnlyError{Method: method, Path: path, Why: "connection upgrades (exec, attach, port-forward) are not allowed"}
	}
	if sub := subresource(path); actingSubresources[sub] {
		return &ReadOnlyError{Method: method, Path: path, Why: "the " + sub + " subresource is not allowed"}
	}
	return nil
}

// subresource returns the subresource of an API path
// (/api/v1/namespaces/NS/pods/NAME/exec → "exec"; /api/v1/nodes/N/proxy/x
// → "proxy"; the legacy /api/v1/proxy/... → "proxy"), or "".
func subresource(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		segs = segs[2:] // api, v1
	case len(segs) >= 3 && segs[0] == "apis":
		segs = segs[3:] // apis, group, version
	default:
		return ""
	}
	if len(segs) > 0 && (segs[0] == "proxy" || segs[0] == "watch") {
		if segs[0] == "proxy" {
			return "proxy"
		}
		segs = segs[1:] // the legacy /watch/ prefix
	}
	if len(segs) >= 3 && segs[0] == "namespaces" {
		segs = segs[2:] // namespaces/NS/RESOURCE/...
	}
	if len(segs) >= 3 {
		return segs[2] // RESOURCE/NAME/SUBRESOURCE
	}
	return ""
}

// isPodBinding reports whether req creates a pod's Binding: POST
// /api/v1/namespaces/NS/pods/NAME/binding.
func isPodBinding(req *http.Request) bool {
	if req.Method != http.MethodPost || req.URL == nil {
		return false
	}
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	return len(segs) == 7 && segs[0] == "api" && segs[1] == "v1" && segs[2] == "namespaces" &&
		segs[4] == "pods" && segs[6] == "binding"
}

func (t *readOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.bindings && isPodBinding(req) {
		return t.next.RoundTrip(req)
	}
	if err := checkReadOnly(req); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	return t.next.RoundTrip(req)
}

// WrappedRoundTripper lets client-go's debugging helpers see the wrapped
// transport.
func (t *readOnly) WrappedRoundTripper() http.RoundTripper { return t.next }
