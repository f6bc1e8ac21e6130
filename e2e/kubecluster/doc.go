// Package kubecluster starts the parts of a real Kubernetes control plane
// (k8s.io/kubernetes v1.37.1) in-process: an embedded etcd, a
// kube-apiserver behind a TCP proxy on 127.0.0.1, and the real
// kube-scheduler; and fills the API server from a snapshot. The e2e tests
// and the demo cluster (cmd/demo-cluster) share it.
package kubecluster
