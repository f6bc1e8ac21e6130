package kubecluster

import (
	"fmt"
	"net/url"

	"k8s.io/apiserver/pkg/storage/storagebackend"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/test/utils/ktesting"
)

// WorkloadAPIFlags make a kube-apiserver serve the workload API
// (Workloads and PodGroups in scheduling.k8s.io/v1beta1, off by default in
// 1.37) and keep spec.schedulingGroup on pods, which it drops with the
// GenericWorkload gate off.
var WorkloadAPIFlags = []string{"--runtime-config=scheduling.k8s.io/v1beta1=true", "--feature-gates=GenericWorkload=true"}

// WorkloadSchedulerFlags turn on workload-aware scheduling in
// kube-scheduler (the GangScheduling plugin, pod-group queueing and
// cycles, workload-aware preemption), against a server started with
// WorkloadAPIFlags.
var WorkloadSchedulerFlags = []string{"--feature-gates=GenericWorkload=true"}

// StartAPIServer starts a kube-apiserver storing under prefix in the etcd
// at etcdURL, serving on a free port of 127.0.0.1, with flags added to the
// test server's; it returns the host:port it serves on and what stops it.
// tb is a test's, or a Process's for a command.
func StartAPIServer(tb ktesting.TB, opts *kubeapiservertesting.TestServerInstanceOptions, etcdURL, prefix string, flags []string) (host string, teardown func(), err error) {
	sc := storagebackend.NewDefaultConfig(prefix, nil)
	sc.Transport.ServerList = []string{etcdURL}
	ts, err := kubeapiservertesting.StartTestServer(tb, opts, flags, sc)
	if err != nil {
		return "", nil, err
	}
	u, err := url.Parse(ts.ClientConfig.Host)
	if err != nil {
		ts.TearDownFn()
		return "", nil, fmt.Errorf("kube-apiserver's address %q: %w", ts.ClientConfig.Host, err)
	}
	return u.Host, ts.TearDownFn, nil
}
