package framework

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The resource-name rules of the core API's v1 helpers, which the scheduler
// uses to decide what counts as a scalar resource.

// IsNativeResource: unprefixed names and *kubernetes.io/ names.
func IsNativeResource(name v1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || IsPrefixedNativeResource(name)
}

// IsPrefixedNativeResource: names in the *kubernetes.io/ namespace.
func IsPrefixedNativeResource(name v1.ResourceName) bool {
	return strings.Contains(string(name), v1.ResourceDefaultNamespacePrefix)
}

// IsExtendedResourceName: not native, not "requests."-prefixed, and a
// qualified name once prefixed with "requests." (as quota would name it).
func IsExtendedResourceName(name v1.ResourceName) bool {
	if IsNativeResource(name) || strings.HasPrefix(string(name), v1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(v1.DefaultResourceRequestsPrefix+string(name))) == 0
}

// IsHugePageResourceName: names starting with "hugepages-".
func IsHugePageResourceName(name v1.ResourceName) bool {
	return strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
}

// IsAttachableVolumeResourceName: names starting with "attachable-volumes-".
func IsAttachableVolumeResourceName(name v1.ResourceName) bool {
	return strings.HasPrefix(string(name), v1.ResourceAttachableVolumesPrefix)
}

// IsScalarResourceName reports extended, hugepages, prefixed-native and
// attachable-volume resources.
func IsScalarResourceName(name v1.ResourceName) bool {
	return IsExtendedResourceName(name) || IsHugePageResourceName(name) ||
		IsPrefixedNativeResource(name) || IsAttachableVolumeResourceName(name)
}
