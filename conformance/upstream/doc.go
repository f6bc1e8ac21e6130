// Package upstream is the reference side of schedtui's differential
// conformance suite: it runs the real kube-scheduler v1.37.1
// (k8s.io/kubernetes/pkg/scheduler) on a snapshot.Cluster and renders every
// scheduling attempt as the record.AttemptJSON schedtui emits for the same
// input.
//
// # Setup
//
// Run starts a fake API server (client-go fake clientset) holding every object
// of the cluster, a scheduler informer factory over it and a scheduler built
// by scheduler.New with the given configuration (nil = upstream defaults,
// versioned defaulting and validation as kube-scheduler applies them), with
// the upstream event handlers feeding the scheduler cache and queue exactly as
// in a live kube-scheduler: bound pods reach the cache, unbound pods the
// scheduling queue (and, through it, the nominator, so pending pods that carry
// status.nominatedNodeName are nominated from the start). Nodes and pods are
// created one by one in snapshot order after the informers watch, so the
// node tree and each node's pod list follow snapshot order. Terminal pods
// (Succeeded/Failed) are left out, as the scheduler's pod informer filters
// them. Pods without a UID get "schedtui-<namespace>-<name>". A pod of
// pending replaces the cluster's pod of the same namespace/name, and pending
// pods the cluster lacks are created after the cluster's pods. The same pod
// may appear in pending more than once (a retry sees its own nomination).
//
// Parallelism is forced to 1 (except in Throughput, the upstream side of
// the throughput benchmark, which runs Scheduler.Run as configured and
// compares no attempt). Upstream runs Filter, Score and the preemption
// dry run on 16 goroutines: the feasible-node list is then in completion
// order, which decides both which max-score node the scoring heap pops (there
// is no random tie-break without extenders) and, once percentageOfNodesToScore
// stops the search early, which nodes are feasible at all. With one worker,
// parallelize.Until walks the nodes in index order from nextStartNodeIndex,
// so every run is reproducible and schedtui can be held to the same order.
// Opportunistic batching never produces a hint because the harness does not
// sign pods (in the default profile no pod is signable anyway).
//
// # One attempt
//
// For each pending pod, in the given order, Run takes the pod's current
// version from the informer (as the queue would hold it) and does what
// scheduleOnePod does: fresh CycleState with PodsToActivate,
// Cache.UpdateSnapshot, sched.SchedulePod; on a FitError the profile's
// RunPostFilterPlugins with the diagnosis (PostFilterMsg set from its status);
// on success assume, Reserve, Permit, then the Bind plugins (PreBind is not
// run: volume binding and DRA would wait for controllers that do not exist).
// SchedulePod is handed a thin wrapper of the profile framework that records
// the PreFilter result, each node's Filter status, the nodes handed to
// PreScore and the NodePluginScores returned by RunScorePlugins, i.e. what
// upstream itself computed in that call.
//
// Rendering:
//   - outcome: Scheduled when a node was chosen and Reserve/Permit passed;
//     Unschedulable for a FitError (including Reserve/Permit rejections, which
//     upstream reports as a FitError over one node, and a pod a PreEnqueue
//     plugin gates, which upstream would never pop); Error otherwise
//     (ErrNoNodesAvailable, plugin errors, missing profile, deleting pod).
//   - node: the suggested host of a Scheduled attempt, else "".
//   - feasible: the nodes given to PreScore, sorted; when nothing is scored
//     it is the single chosen node; [] on failure.
//   - filter: for each snapshot node not feasible, NodeToStatus.Get(node) of
//     the FitError's diagnosis (or, after a success, of the diagnosis rebuilt
//     from the recorded PreFilter/Filter calls), if it is an explicit entry or
//     the absent-nodes status has reasons. plugin = Status.Plugin(), reasons
//     = Status.Reasons(); NodeResourcesFit reasons keep upstream's fixed
//     leading order (pods, cpu, memory, ephemeral-storage) and the scalar
//     resources that follow are sorted.
//   - scores/total/top: from the recorded RunScorePlugins result when more
//     than one node was feasible: raw = RawScores, final = Scores (weighted),
//     normalized = final / plugin weight, total = TotalScore, top = nodes tied
//     at the highest total, sorted. Otherwise scores and total are empty and
//     top is the chosen node.
//   - message: the failure status message, for a FitError FitError.Error()
//     including the PostFilter part; "" when scheduled.
//   - nominatedNode: the PostFilter result's nominated node when its mode is
//     Override, else "".
//   - victims: namespace/name of the pods SelectVictimsOnNode chose on the
//     nominated node (recorded through DefaultPreemption's Evaluator), sorted;
//     [] when preemption did not nominate a node.
//
// # State between attempts
//
// A scheduled pod is assumed in the cache and bound through the Bind plugins
// (DefaultBinder's POST pods/binding, implemented by the fake API server);
// the resulting pod update confirms it in the cache. A failed attempt applies
// handleSchedulingFailure's effects: Queue.AddNominatedPod with the
// nominating info (PostFilter result, or a cleared nomination for errors) and
// the status patch (PodScheduled=False condition, nominatedNodeName).
// Preemption actuates through upstream's own executor (asynchronous, as by
// default): DisruptionTarget condition patch, then DELETE of each victim,
// and clearing nominatedNodeName of lower-priority pods nominated to the same
// node. The fake API server deletes at once (no graceful termination), so
// victims are gone from the cache for the next attempt. Upstream's
// resourceclaim controller runs in process (started once every pod
// exists) and releases a victim's claims as in a real cluster: its
// reservation dropped, a claim reserved for nobody deallocated and its
// finalizer removed; the harness plays the garbage collector, deleting the
// claims every owner of which is the victim (claims.go). Before the next
// attempt Run waits for the asynchronous preemption to finish, for the
// controller to have released the victims' claims and the scheduler's
// claim cache to show it, and for the scheduler's pod event handler to
// have processed every resulting event.
//
// # The queue deciding (RunQueue)
//
// With GenericWorkload the queue's unit is a pod or a pod group, so
// RunQueue does not choose the attempts: upstream's own ScheduleOne pops
// and schedules, one entity at a time, and the harness records each cycle
// from outside (groups.go): the popped entity (NextEntity wrapped), each
// member's failure (FailureHandler wrapped: outcome, the PodScheduled
// message, the nomination after it, the node verdicts of a FitError of
// its own), its binding (the pod bound in the informer, no longer assumed),
// the pods preemption deleted, and every change of a PodGroup's
// PodGroupInitiallyScheduled condition (a reactor on the status patches).
// Time is virtual (queue_clock.go): a fake clock whose readings still
// increase by a nanosecond each, so equal-priority entities keep their
// arrival order; the queue is drained while Pop would return at once
// (activeQ, or backoffQ when activeQ is empty), the late PodGroups are
// created, then the clock moves a second at a time to QueueHorizon with
// upstream's backoff flush after each step (flushBackoffQCompleted and
// the backoff heap's length are reached by go:linkname, as PriorityQueue.Run's
// goroutine would call the flush on the clock's ticker). Barrier pods stay
// in place: deleting them, assigned pods, would requeue unschedulable pods.
package upstream
