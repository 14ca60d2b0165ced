import Foundation
import SuiteServer
import SuiteSyncProtocol
import Testing

/// ``PushPlan``: the decisions both storages' pushes take from it (the contract's push cases run
/// them through each backend).
@Suite struct PushPlanTests {
    static func operation(_ id: String, slot: String = "s", bytes: Int = 10) -> SyncEnvelope {
        SyncEnvelope(id: id, slot: slot, payload: Data(repeating: 1, count: bytes))
    }

    @Test func candidatesKeepEachIDOnceAtItsFirstOccurrence() {
        let first = Self.operation("a", slot: "first"), again = Self.operation("a", slot: "again")
        let batch = [first, Self.operation("b"), again, Self.operation("c"), Self.operation("b")]
        #expect(PushPlan.candidates(batch).map(\.id) == ["a", "b", "c"])
        #expect(PushPlan.candidates(batch).first == first)
        #expect(PushPlan.candidates([]).isEmpty)
    }

    @Test func storesWhatTheLogLacksRightAfterTheHeadInTheBatchsOrder() {
        let candidates = ["a", "b", "c", "d"].map { Self.operation($0) }
        let plan = PushPlan(candidates: candidates, stored: ["b", "z"], head: 41)
        #expect(plan.operations.map(\.id) == ["a", "c", "d"])
        #expect(plan.head == 41)
        #expect(plan.newHead == 44)
        #expect((0..<plan.operations.count).map(plan.position(at:)) == [42, 43, 44])
        #expect(plan.outcome(epoch: "e1") == PushOutcome(epoch: "e1", head: 44, stored: 3))
    }

    @Test func countsEachStoredOperationsBytesAndItsRow() {
        let candidates = [Self.operation("id-1", slot: "slot", bytes: 100), Self.operation("x", slot: "", bytes: 0)]
        let plan = PushPlan(candidates: candidates, stored: [], head: 0)
        #expect(plan.bytes == (4 + 4 + 100 + 16) + (1 + 0 + 0 + 16))
        #expect(plan.bytes == candidates.reduce(0) { $0 + PushPlan.storedSize(of: $1) })
        #expect(PushPlan(candidates: candidates, stored: ["x"], head: 0).bytes == 124)
    }

    @Test func aPushOfHeldOperationsStoresNothingAndAnswersTheHead() {
        let plan = PushPlan(candidates: [Self.operation("a")], stored: ["a"], head: 7)
        #expect(plan.operations.isEmpty)
        #expect(plan.bytes == 0)
        #expect(plan.outcome(epoch: "e") == PushOutcome(epoch: "e", head: 7, stored: 0))
        #expect(PushPlan(candidates: [], stored: [], head: 0).outcome(epoch: "e") == PushOutcome(epoch: "e", head: 0, stored: 0))
    }

    @Test func theQuotaRefusesOnlyBytesThatTakeTheAccountPastIt() throws {
        try AccountQuota.check(adding: 10, to: 90, quota: 100)
        try AccountQuota.check(adding: 10, to: 500, quota: nil)
        try AccountQuota.check(adding: -50, to: 500, quota: 100)
        try AccountQuota.check(adding: 0, to: 500, quota: 100)
        #expect(throws: ServerStorageError.quotaExceeded(used: 91, quota: 100)) {
            try AccountQuota.check(adding: 10, to: 91, quota: 100)
        }
    }
}
