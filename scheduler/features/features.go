// Package features holds the feature gates that change what kube-scheduler
// does, as the plugins and the core read them.
//
// Features mirrors upstream's framework/plugins/feature.Features: one field
// per gate a plugin reads, copied once when a profile is built, so that no
// plugin looks a gate up by name. Default gives kube-scheduler v1.37's
// defaults.
package features

// Features carries the gate values the scheduler's plugins and core read.
type Features struct {
	EnableDRAExtendedResource                          bool
	EnableDRAPrioritizedList                           bool
	EnableDRAAdminAccess                               bool
	EnableDRAConsumableCapacity                        bool
	EnableDRADeviceCompatibilityGroups                 bool
	EnableDRAFractionalCapacityRange                   bool
	EnableDRADerivedAttributes                         bool
	EnableDRADeviceTaints                              bool
	EnableDRADeviceTaintRules                          bool
	EnableDRADeviceBindingConditions                   bool
	EnableDRAListTypeAttributes                        bool
	EnableDRANodeAllocatableResources                  bool
	EnableDRAOptionalNodeOperations                    bool
	EnableDRAPartitionableDevices                      bool
	EnableDRAResourceClaimDeviceStatus                 bool
	EnableDRASchedulerFilterTimeout                    bool
	EnableDRAWorkloadResourceClaims                    bool
	EnableDynamicResourceAllocation                    bool
	EnableVolumeAttributesClass                        bool
	EnableVolumeLimitScaling                           bool
	EnableNodeInclusionPolicyInPodTopologySpread       bool
	EnableMatchLabelKeysInPodTopologySpread            bool
	EnableInPlacePodVerticalScaling                    bool
	EnableAsyncPreemption                              bool
	EnablePodLevelResources                            bool
	EnableStorageCapacityScoring                       bool
	EnableNodeDeclaredFeatures                         bool
	EnableGenericWorkload                              bool
	EnableTaintTolerationComparisonOperators           bool
	EnableInPlacePodLevelResourcesVerticalScaling      bool
	EnableInPlacePodVerticalScalingSchedulerPreemption bool
	EnableTopologyAwareWorkloadScheduling              bool
	EnableInterPodAffinityHostnameFastPath             bool
	EnablePodGroupPreemptionPolicy                     bool
	EnableCompositePodGroup                            bool

	// Gates read by the queue and the cycle rather than by a plugin.
	EnableOpportunisticBatching           bool
	EnableSchedulerPopFromBackoffQ        bool
	EnableNominatedNodeNameForExpectation bool
	EnableSchedulerAsyncAPICalls          bool
	EnableSchedulerPreQueueingHints       bool
	// Read where the scheduler writes a pod condition (its
	// observedGeneration).
	EnablePodObservedGenerationTracking bool
}

// Default returns kube-scheduler v1.37's default gate values.
func Default() Features {
	return Features{
		EnableDRAExtendedResource:                     true,
		EnableDRAPrioritizedList:                      true,
		EnableDRAAdminAccess:                          true,
		EnableDRAConsumableCapacity:                   true,
		EnableDRADeviceTaints:                         true,
		EnableDRADeviceTaintRules:                     true,
		EnableDRADeviceBindingConditions:              true,
		EnableDRAPartitionableDevices:                 true,
		EnableDRAResourceClaimDeviceStatus:            true,
		EnableDRASchedulerFilterTimeout:               true,
		EnableDynamicResourceAllocation:               true,
		EnableVolumeAttributesClass:                   true,
		EnableVolumeLimitScaling:                      true,
		EnableNodeInclusionPolicyInPodTopologySpread:  true,
		EnableMatchLabelKeysInPodTopologySpread:       true,
		EnableInPlacePodVerticalScaling:               true,
		EnableAsyncPreemption:                         true,
		EnablePodLevelResources:                       true,
		EnableStorageCapacityScoring:                  true,
		EnableNodeDeclaredFeatures:                    true,
		EnableInPlacePodLevelResourcesVerticalScaling: true,
		EnableOpportunisticBatching:                   true,
		EnableSchedulerPopFromBackoffQ:                true,
		EnableNominatedNodeNameForExpectation:         true,
		EnablePodObservedGenerationTracking:           true,
	}
}
