// Package storage holds the PersistentVolume / PersistentVolumeClaim helpers
// the volume plugins (VolumeBinding, VolumeZone, NodeVolumeLimits) need from
// k8s.io/component-helpers/storage/volume (v0.37.1), re-implemented so the
// scheduler core does not depend on k8s.io/client-go: upstream's
// pv_helpers.go imports client-go for a StorageClass lister type and for
// tools/reference.GetReference.
//
// Annotation keys, matching rules and error texts are the upstream ones;
// only the StorageClass lookup differs, taking a plain function (for
// example framework.ObjectLister's StorageClass method) instead of a lister.
//
// k8s.io/component-helpers/storage/ephemeral imports only k8s.io/api and
// apimachinery, so the plugins keep using it directly.
package storage
