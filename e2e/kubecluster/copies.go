package kubecluster

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes/scheme"
)

// CopyOf turns copy i into what it should be: it picks one of the
// templates (its index is returned) and changes that template in place
// (name, labels, node; the UID is WriteCopies'). Each worker has templates
// of its own, so CopyOf may be called from several goroutines at once.
type CopyOf func(i int, templates []runtime.Object) int

// WriteCopies writes copies first..n-1 of objects the API server stored
// (templateKeys: their etcd keys) straight into the etcd at etcdURL, each
// under its own key and with a fresh UID, as the API server would have
// stored it had each been created through it. This fills a cluster a
// hundred times faster than the API server can take creates on two
// cores (every create is admitted, validated, converted, audited and
// written alone), and what is stored is what the API server made of the
// templates: its defaults, its admission plugins' changes, its managed
// fields. The API server's watch cache only sees the copies through its
// etcd watch; restart it for a cache listed from etcd. The storage must
// be unencrypted protobuf (the default); progress, when non-nil, is
// called every 30 seconds with the copies written.
func WriteCopies(ctx context.Context, etcdURL string, templateKeys []string, first, n int, copyOf CopyOf, progress func(written int)) error {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		return fmt.Errorf("etcd client: %w", err)
	}
	defer cli.Close()
	stored := make([][]byte, len(templateKeys))
	for t, key := range templateKeys {
		resp, err := cli.Get(ctx, key)
		if err != nil {
			return fmt.Errorf("etcd: reading template %s: %w", key, err)
		}
		if len(resp.Kvs) != 1 {
			return fmt.Errorf("etcd: template %s is not stored (is the API server's storage prefix another?)", key)
		}
		stored[t] = resp.Kvs[0].Value
	}
	codec := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	// Each worker decodes its own templates and commits transactions of
	// as many puts as etcd takes in one (128 by default).
	const workers, batch = 4, 128
	var next, written atomic.Int64
	next.Store(int64(first))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return firstErr != nil
	}
	stop := make(chan struct{})
	if progress != nil {
		go func() {
			t := time.NewTicker(30 * time.Second)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					progress(int(written.Load()))
				}
			}
		}()
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			templates := make([]runtime.Object, len(stored))
			dirs := make([]string, len(stored))
			for t, data := range stored {
				obj, gvk, err := codec.Decode(data, nil, nil)
				if err != nil {
					fail(fmt.Errorf("etcd: decoding template %s: %w", templateKeys[t], err))
					return
				}
				obj.GetObjectKind().SetGroupVersionKind(*gvk)
				acc, err := meta.Accessor(obj)
				if err != nil {
					fail(err)
					return
				}
				// The key is the resource's prefix, the namespace if
				// any, and the name.
				dirs[t] = path.Dir(templateKeys[t])
				if acc.GetNamespace() != "" {
					dirs[t] = path.Dir(dirs[t])
				}
				templates[t] = obj
			}
			var buf bytes.Buffer
			ops := make([]clientv3.Op, 0, batch)
			commit := func() bool {
				if len(ops) == 0 {
					return true
				}
				if _, err := cli.Txn(ctx).Then(ops...).Commit(); err != nil {
					fail(fmt.Errorf("etcd: writing copies: %w", err))
					return false
				}
				written.Add(int64(len(ops)))
				ops = ops[:0]
				return true
			}
			for !failed() {
				i := int(next.Add(1)) - 1
				if i >= n {
					break
				}
				t := copyOf(i, templates)
				obj := templates[t]
				acc, _ := meta.Accessor(obj)
				acc.SetUID(uuid.NewUUID())
				key := path.Join(dirs[t], acc.GetNamespace(), acc.GetName())
				buf.Reset()
				if err := codec.Encode(obj, &buf); err != nil {
					fail(fmt.Errorf("encoding %s: %w", key, err))
					return
				}
				ops = append(ops, clientv3.OpPut(key, buf.String()))
				if len(ops) == batch && !commit() {
					return
				}
			}
			commit()
		}()
	}
	wg.Wait()
	close(stop)
	return firstErr
}
