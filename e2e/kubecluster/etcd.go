package kubecluster

import (
	"errors"
	"net"
	"net/url"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// FreeAddr is a 127.0.0.1 address with a port nothing listens on now.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// StartEtcd starts a single-member etcd storing in dir, listening on
// 127.0.0.1 only, and returns its client URL and what stops it.
func StartEtcd(dir string) (clientURL string, stop func(), err error) {
	cfg := embed.NewConfig()
	cfg.Dir = dir
	client, err := FreeAddr()
	if err != nil {
		return "", nil, err
	}
	peer, err := FreeAddr()
	if err != nil {
		return "", nil, err
	}
	cu, pu := url.URL{Scheme: "http", Host: client}, url.URL{Scheme: "http", Host: peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "fatal"
	cfg.QuotaBackendBytes = 8 << 30
	// A throwaway store: losing it in a power cut costs nothing, and fsync
	// on every write makes filling a 55,000-object cluster crawl.
	cfg.UnsafeNoFsync = true
	// A single member never needs an election; long ticks keep a CPU
	// starved CI machine from timing requests out.
	cfg.TickMs, cfg.ElectionMs = 500, 5000
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return "", nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		return "", nil, errors.New("etcd did not become ready in 60s")
	}
	return cu.String(), e.Close, nil
}
