package storage

import "github.com/schedtui/schedtui/scheduler/framework"

// Annotation keys, provisioner names and finalizers, with the values
// k8s.io/component-helpers/storage/volume defines.
const (
	// AnnBindCompleted is set on a PVC once its initial binding setup is
	// done; only its presence matters.
	AnnBindCompleted = "pv.kubernetes.io/bind-completed"

	// AnnBoundByController marks a PV or PVC binding as made by the
	// controller (or scheduler) rather than pre-bound by the user; only its
	// presence matters.
	AnnBoundByController = "pv.kubernetes.io/bound-by-controller"

	// AnnSelectedNode is set by the scheduler on a PVC to be provisioned
	// with delayed binding; the value is the chosen node's name (shadow
	// mode reads it too, from the framework).
	AnnSelectedNode = framework.AnnSelectedNode

	// NotSupportedProvisioner is the StorageClass provisioner meaning
	// "no dynamic provisioning".
	NotSupportedProvisioner = "kubernetes.io/no-provisioner"

	// AnnDynamicallyProvisioned is set on a dynamically provisioned PV; the
	// value is the volume plugin that created it.
	AnnDynamicallyProvisioned = "pv.kubernetes.io/provisioned-by"

	// AnnMigratedTo is set on PVCs and PVs handed to a CSI driver by CSI
	// migration.
	AnnMigratedTo = "pv.kubernetes.io/migrated-to"

	// AnnStorageProvisioner and its beta form name the plugin expected to
	// provision a PVC.
	AnnStorageProvisioner     = "volume.kubernetes.io/storage-provisioner"
	AnnBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner"

	// PVDeletionProtectionFinalizer is the external-provisioner's PV
	// finalizer.
	PVDeletionProtectionFinalizer = "external-provisioner.volume.kubernetes.io/finalizer"

	// PVDeletionInTreeProtectionFinalizer protects in-tree PVs from
	// deletion.
	PVDeletionInTreeProtectionFinalizer = "kubernetes.io/pv-controller"
)
