package csimigration

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// labelMultiZoneDelimiter separates zones in a PV's zone label.
const labelMultiZoneDelimiter = "__"

const (
	gceVolIDZonalFmt    = "projects/%s/zones/%s/disks/%s"
	gceVolIDRegionalFmt = "projects/%s/regions/%s/disks/%s"
	gceUnspecified      = "UNSPECIFIED"
)

// gcePVHandle follows the GCE PD translator: the disk is zonal with one
// zone label value, regional with several, unspecified with none.
func gcePVHandle(pv *v1.PersistentVolume) (string, error) {
	pdName := pv.Spec.GCEPersistentDisk.PDName
	zonesLabel := pv.Labels[v1.LabelFailureDomainBetaZone]
	if zonesLabel == "" {
		zonesLabel = pv.Labels[v1.LabelTopologyZone]
	}
	var handle string
	zones := strings.Split(zonesLabel, labelMultiZoneDelimiter)
	switch {
	case len(zones) == 1 && zones[0] != "":
		handle = fmt.Sprintf(gceVolIDZonalFmt, gceUnspecified, zones[0], pdName)
	case len(zones) > 1:
		region, err := gceRegionFromZones(zones)
		if err != nil {
			return "", fmt.Errorf("failed to get region from zones: %v", err)
		}
		handle = fmt.Sprintf(gceVolIDRegionalFmt, gceUnspecified, region, pdName)
	default:
		handle = fmt.Sprintf(gceVolIDZonalFmt, gceUnspecified, gceUnspecified, pdName)
	}
	translateTopology(pv, GCEPDTopologyKey)
	return handle, nil
}

// gceRegionFromZones expects zones shaped {locale}-{region}-{zone}, all in
// one region.
func gceRegionFromZones(zones []string) (string, error) {
	regions := map[string]struct{}{}
	for _, zone := range zones {
		parts := strings.Split(zone, "-")
		if len(parts) != 3 {
			return "", fmt.Errorf("zone in unexpected format, expected: {locale}-{region}-{zone}, got: %v", zone)
		}
		regions[strings.Join(parts[0:2], "-")] = struct{}{}
	}
	if len(regions) != 1 {
		return "", fmt.Errorf("multiple or no regions gotten from zones, got: %v", regions)
	}
	for r := range regions {
		return r, nil
	}
	return "", nil
}

var awsVolumeRegMatch = regexp.MustCompile("^vol-[^/]*$")

// ebsHandle turns a Kubernetes EBS volume ID (aws://zone/vol-x,
// aws:///vol-x or vol-x) into the EBS volume ID.
func ebsHandle(kubernetesID string) (string, error) {
	id, err := ebsVolumeID(kubernetesID)
	if err != nil {
		return "", fmt.Errorf("failed to translate Kubernetes ID to EBS Volume ID %v", err)
	}
	return id, nil
}

func ebsVolumeID(kubernetesID string) (string, error) {
	if !strings.HasPrefix(kubernetesID, "aws://") {
		return kubernetesID, nil
	}
	u, err := url.Parse(kubernetesID)
	if err != nil {
		return "", fmt.Errorf("Invalid disk name (%s): %v", kubernetesID, err)
	}
	if u.Scheme != "aws" {
		return "", fmt.Errorf("Invalid scheme for AWS volume (%s)", kubernetesID)
	}
	awsID := strings.Trim(u.Path, "/")
	if !awsVolumeRegMatch.MatchString(awsID) {
		return "", fmt.Errorf("Invalid format for AWS volume (%s)", kubernetesID)
	}
	return awsID, nil
}

const azureFileResourceGroupAnnotation = "kubernetes.io/azure-file-resource-group"

var azureSecretNameRE = regexp.MustCompile(`azure-storage-account-(.+)-secret`)

// azureFileHandle is "<resource group>#<account>#<share>#"; the account
// comes from the secret name when it has the conventional shape.
func azureFileHandle(resourceGroup, secretName, shareName string) string {
	account := secretName
	if m := azureSecretNameRE.FindStringSubmatch(secretName); len(m) == 2 {
		account = m[1]
	}
	return fmt.Sprintf("%s#%s#%s#%s", resourceGroup, account, shareName, "")
}
