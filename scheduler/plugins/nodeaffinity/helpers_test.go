package nodeaffinity

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// asObject keeps an absent args value a nil interface, not a typed nil.
func asObject(v any) runtime.Object {
	if v == nil {
		return nil
	}
	return v.(runtime.Object)
}
