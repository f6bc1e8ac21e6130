package csimigration

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	storagehelpers "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
)

func gcePV(labels map[string]string, affinity *v1.VolumeNodeAffinity) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv", Labels: labels},
		Spec: v1.PersistentVolumeSpec{
			PersistentVolumeSource: v1.PersistentVolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: "test-disk"}},
			NodeAffinity:           affinity,
		},
	}
}

func affinity(key string, values ...string) *v1.VolumeNodeAffinity {
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}},
	}}}}
}

func TestTranslatePVHandles(t *testing.T) {
	tests := []struct {
		name       string
		pv         *v1.PersistentVolume
		wantDriver string
		wantHandle string
		wantErr    string
	}{
		{name: "gce zonal", pv: gcePV(map[string]string{v1.LabelFailureDomainBetaZone: "us-east1-a"}, nil),
			wantDriver: GCEPDDriverName, wantHandle: "projects/UNSPECIFIED/zones/us-east1-a/disks/test-disk"},
		{name: "gce zonal from GA label", pv: gcePV(map[string]string{v1.LabelTopologyZone: "us-east1-b"}, nil),
			wantDriver: GCEPDDriverName, wantHandle: "projects/UNSPECIFIED/zones/us-east1-b/disks/test-disk"},
		{name: "gce regional", pv: gcePV(map[string]string{v1.LabelTopologyZone: "us-east1-a__us-east1-b"}, nil),
			wantDriver: GCEPDDriverName, wantHandle: "projects/UNSPECIFIED/regions/us-east1/disks/test-disk"},
		{name: "gce unspecified", pv: gcePV(nil, nil),
			wantDriver: GCEPDDriverName, wantHandle: "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/test-disk"},
		{name: "gce regional with a bad zone", pv: gcePV(map[string]string{v1.LabelTopologyZone: "us-east1-a__bad"}, nil),
			wantErr: "failed to get region from zones: zone in unexpected format, expected: {locale}-{region}-{zone}, got: bad"},
		{name: "gce zones in two regions", pv: gcePV(map[string]string{v1.LabelTopologyZone: "us-east1-a__us-west1-a"}, nil),
			wantErr: "failed to get region from zones: multiple or no regions gotten from zones, got: map[us-east1:{} us-west1:{}]"},
		{name: "ebs url id", pv: &v1.PersistentVolume{Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://us-east-1a/vol-123"}}}},
			wantDriver: AWSEBSDriverName, wantHandle: "vol-123"},
		{name: "ebs bad id", pv: &v1.PersistentVolume{Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "aws:///snap-1"}}}},
			wantErr: "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume (aws:///snap-1)"},
		{name: "azure file with conventional secret", pv: &v1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{azureFileResourceGroupAnnotation: "rg"}},
			Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
				AzureFile: &v1.AzureFilePersistentVolumeSource{SecretName: "azure-storage-account-acct-secret", ShareName: "share"}}}},
			wantDriver: AzureFileDriverName, wantHandle: "rg#acct#share#"},
		{name: "portworx", pv: &v1.PersistentVolume{Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			PortworxVolume: &v1.PortworxVolumeSource{VolumeID: "px"}}}}, wantDriver: PortworxDriverName, wantHandle: "px"},
		{name: "not migratable", pv: &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "hp"}, Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			HostPath: &v1.HostPathVolumeSource{}}}}, wantErr: `could not find in-tree plugin translation logic for "hp"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.pv.DeepCopy()
			got, err := TranslateInTreePVToCSI(tc.pv)
			if !reflect.DeepEqual(before, tc.pv) {
				t.Error("the input PV was modified")
			}
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Spec.CSI == nil || got.Spec.CSI.Driver != tc.wantDriver || got.Spec.CSI.VolumeHandle != tc.wantHandle {
				t.Errorf("CSI source = %+v, want %s %s", got.Spec.CSI, tc.wantDriver, tc.wantHandle)
			}
		})
	}
}

// TestTranslatedNodeAffinity follows upstream's CSI migration binder cases:
// the zone label becomes a requirement on the driver's topology key.
func TestTranslatedNodeAffinity(t *testing.T) {
	zone1Labels := map[string]string{v1.LabelFailureDomainBetaZone: "us-east-1", v1.LabelFailureDomainBetaRegion: "us-east-1a"}
	nodeZone1 := map[string]string{GCEPDTopologyKey: "us-east-1"}
	nodeZone2 := map[string]string{GCEPDTopologyKey: "us-east-2"}
	betaZoneAndRegion := affinity(v1.LabelFailureDomainBetaZone, "z")
	betaZoneAndRegion.Required.NodeSelectorTerms[0].MatchExpressions = append(betaZoneAndRegion.Required.NodeSelectorTerms[0].MatchExpressions,
		v1.NodeSelectorRequirement{Key: v1.LabelFailureDomainBetaRegion, Operator: v1.NodeSelectorOpIn, Values: []string{"r"}})
	tests := []struct {
		name      string
		pv        *v1.PersistentVolume
		node      map[string]string
		wantMatch bool
		wantTerms []v1.NodeSelectorRequirement
	}{
		{name: "zone label, node in zone", pv: gcePV(zone1Labels, nil), node: nodeZone1, wantMatch: true,
			wantTerms: []v1.NodeSelectorRequirement{{Key: GCEPDTopologyKey, Operator: v1.NodeSelectorOpIn, Values: []string{"us-east-1"}}}},
		{name: "zone label, node in other zone", pv: gcePV(zone1Labels, nil), node: nodeZone2},
		{name: "multi-zone label", pv: gcePV(map[string]string{v1.LabelTopologyZone: "us-east1-b__us-east1-a"}, nil), node: map[string]string{GCEPDTopologyKey: "us-east1-b"}, wantMatch: true,
			wantTerms: []v1.NodeSelectorRequirement{{Key: GCEPDTopologyKey, Operator: v1.NodeSelectorOpIn, Values: []string{"us-east1-a", "us-east1-b"}}}},
		{name: "beta zone affinity is re-keyed", pv: gcePV(nil, affinity(v1.LabelFailureDomainBetaZone, "us-east-1")), node: nodeZone1, wantMatch: true,
			wantTerms: []v1.NodeSelectorRequirement{{Key: GCEPDTopologyKey, Operator: v1.NodeSelectorOpIn, Values: []string{"us-east-1"}}}},
		{name: "beta region affinity becomes GA next to a beta zone", pv: gcePV(nil, betaZoneAndRegion),
			node: map[string]string{GCEPDTopologyKey: "z", v1.LabelTopologyRegion: "r"}, wantMatch: true,
			wantTerms: []v1.NodeSelectorRequirement{
				{Key: GCEPDTopologyKey, Operator: v1.NodeSelectorOpIn, Values: []string{"z"}},
				{Key: v1.LabelTopologyRegion, Operator: v1.NodeSelectorOpIn, Values: []string{"r"}}}},
		// The region is only re-keyed when the zone is beta too.
		{name: "beta region alone stays", pv: gcePV(nil, affinity(v1.LabelFailureDomainBetaRegion, "r")),
			node:      map[string]string{v1.LabelTopologyRegion: "r"},
			wantTerms: []v1.NodeSelectorRequirement{{Key: v1.LabelFailureDomainBetaRegion, Operator: v1.NodeSelectorOpIn, Values: []string{"r"}}}},
		{name: "no zone at all", pv: gcePV(nil, nil), node: nodeZone2, wantMatch: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TranslateInTreePVToCSI(tc.pv)
			if err != nil {
				t.Fatal(err)
			}
			if match := storagehelpers.CheckNodeAffinity(got, tc.node) == nil; match != tc.wantMatch {
				t.Errorf("node affinity match = %v, want %v", match, tc.wantMatch)
			}
			if tc.wantTerms != nil {
				terms := got.Spec.NodeAffinity.Required.NodeSelectorTerms
				if len(terms) != 1 || !reflect.DeepEqual(terms[0].MatchExpressions, tc.wantTerms) {
					t.Errorf("terms = %+v, want %+v", terms, tc.wantTerms)
				}
			}
		})
	}
}

func TestInline(t *testing.T) {
	tests := []struct {
		name       string
		vol        v1.Volume
		wantPlugin string
		wantDriver string
		wantHandle string
	}{
		{name: "gce", vol: v1.Volume{VolumeSource: v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: "d"}}},
			wantPlugin: GCEPDInTreePluginName, wantDriver: GCEPDDriverName, wantHandle: "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d"},
		{name: "ebs", vol: v1.Volume{VolumeSource: v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "aws:///vol-1"}}},
			wantPlugin: AWSEBSInTreePluginName, wantDriver: AWSEBSDriverName, wantHandle: "vol-1"},
		{name: "cinder", vol: v1.Volume{VolumeSource: v1.VolumeSource{Cinder: &v1.CinderVolumeSource{VolumeID: "c"}}},
			wantPlugin: CinderInTreePluginName, wantDriver: CinderDriverName, wantHandle: "c"},
		{name: "azure disk", vol: v1.Volume{VolumeSource: v1.VolumeSource{AzureDisk: &v1.AzureDiskVolumeSource{DataDiskURI: "uri"}}},
			wantPlugin: AzureDiskInTreePluginName, wantDriver: AzureDiskDriverName, wantHandle: "uri"},
		{name: "azure file, unconventional secret", vol: v1.Volume{VolumeSource: v1.VolumeSource{AzureFile: &v1.AzureFileVolumeSource{SecretName: "s", ShareName: "sh"}}},
			wantPlugin: AzureFileInTreePluginName, wantDriver: AzureFileDriverName, wantHandle: "#s#sh#"},
		{name: "vsphere", vol: v1.Volume{VolumeSource: v1.VolumeSource{VsphereVolume: &v1.VsphereVirtualDiskVolumeSource{VolumePath: "p"}}},
			wantPlugin: VSphereInTreePluginName, wantDriver: VSphereDriverName, wantHandle: "p"},
		{name: "portworx", vol: v1.Volume{VolumeSource: v1.VolumeSource{PortworxVolume: &v1.PortworxVolumeSource{VolumeID: "x"}}},
			wantPlugin: PortworxVolumePluginName, wantDriver: PortworxDriverName, wantHandle: "x"},
		{name: "rbd is not migratable in 1.37", vol: v1.Volume{VolumeSource: v1.VolumeSource{RBD: &v1.RBDVolumeSource{}}}},
		{name: "csi inline is not in-tree", vol: v1.Volume{VolumeSource: v1.VolumeSource{CSI: &v1.CSIVolumeSource{Driver: "x"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsInlineMigratable(&tc.vol); got != (tc.wantPlugin != "") {
				t.Fatalf("IsInlineMigratable = %v", got)
			}
			if tc.wantPlugin == "" {
				return
			}
			plugin, err := InTreePluginNameFromVolume(&tc.vol)
			if err != nil || plugin != tc.wantPlugin {
				t.Errorf("plugin = %q, %v", plugin, err)
			}
			if d, err := CSINameFromInTreeName(plugin); err != nil || d != tc.wantDriver {
				t.Errorf("driver = %q, %v", d, err)
			}
			src, err := TranslateInTreeInlineVolumeToCSI(&tc.vol, "ns")
			if err != nil || src.Driver != tc.wantDriver || src.VolumeHandle != tc.wantHandle {
				t.Errorf("source = %+v, %v", src, err)
			}
		})
	}
	if !IsMigratableIntreePluginByName(AzureFileInTreePluginName) || IsMigratableIntreePluginByName("kubernetes.io/rbd") {
		t.Error("IsMigratableIntreePluginByName is wrong")
	}
}
