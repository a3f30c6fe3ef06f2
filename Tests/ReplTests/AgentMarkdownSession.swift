import Bridge
import Foundation
import MirrorStore
import TestSupport

/// A mirror holding one session with what a coding agent really writes: a user's fenced error
/// output, the agent's `## Plan`, a numbered list, a table, a fenced Swift block whose lines
/// start with `#`, a tool output holding ```, thinking with a heading, and a last message whose
/// fence a cut stream left open; with, planted in a message and in a tool output, HTML that
/// would run a script or fetch an image (`hostile`).
enum AgentMarkdownSession {
    static let sessionID = "A6E47C1D-2B3F-4C5D-8E9F-0123456789AB"

    static let userText = """
        The build fails:

        ```
        error: cannot find 'Mirror' in scope
        # 1 error
        ```
        """

    static let swiftCode = """
        #if canImport(Glibc)
        import Glibc
        #endif
        # not a heading: code
        let answer = 42 // `ticks` and <b>tags</b>
        """

    static let assistantText = """
        # Diagnosis

        The type is *missing* from the **target**; see [the manual](https://www.swift.org/documentation/).

        ## Plan

        1. Add the dependency
        2. Rebuild
           - then run the tests

        | file | change |
        | --- | --- |
        | Package.swift | `dependencies` |
        | Sources/App.swift | import |

        ```swift
        \(swiftCode)
        ```

        Heading in Setext
        -----------------

        Done.
        """

    static let thinkingText = "# Thinking it over\nThe **linker** flags are fine."

    static let toolOutput = """
        Compiling
        ```swift
        let x = 1
        ```
        ~~~
        Build complete! <script>document.title = "pwned by tool"</script>
        """

    static let cutText = """
        Here is the rest:

        ```python
        print("cut short")
        # still code
        """

    /// HTML that would run a script (changing the title to `pwned…`) or fetch from `imageURL`.
    static func hostile(imageURL: String) -> String {
        """
        Careful <script>document.title = "pwned by message"</script>

        <img src="\(imageURL)" onerror="document.title = 'pwned by onerror'">

        ![an image](\(imageURL))

        <div onmouseover="document.title = 'pwned by div'">hover</div> [a link](javascript:document.title='pwned') end.
        """
    }

    /// Makes the mirror in `directory`; `imageURL` is what the hostile message would fetch.
    static func mirror(in directory: TemporaryDirectory, imageURL: String = "http://127.0.0.1:9/image.png",
                       extraMessages: Int = 0) throws -> String {
        let path = directory.path("agent.sqlite")
        let store = try MirrorStore(path: path)
        try store.upsertSessions([SessionRecord(sessionID: sessionID, title: "Fix the build", mode: "claude-code", lastTS: 1_730_000_100_000)])
        var time: Int64 = 1_730_000_000_000
        var events: [NewEvent] = []
        func add(_ json: JSONValue, kind: String, text: String = "") {
            time += 1_000
            events.append(NewEvent(sessionID: sessionID, timestamp: time, kind: kind, text: text,
                                   updateJSON: JSONWriter.bytes(of: json)))
        }
        func chunk(_ kind: String, _ text: String) {
            add(["sessionUpdate": .string(kind), "content": ["content": ["type": "text", "text": .string(text)]]], kind: kind, text: text)
        }
        chunk("user_message_chunk", userText)
        chunk("agent_thought_chunk", thinkingText)
        chunk("agent_message_chunk", assistantText)
        add(["sessionUpdate": "tool_call", "tool_call": ["call_id": "call-1", "name": "Bash", "arguments": ["command": "swift build"]]],
            kind: "tool_call")
        add(["sessionUpdate": "tool_call_update", "tool_call_update": ["call_id": "call-1", "status": "completed",
                                                                       "output": ["stdout": .string(toolOutput)]]],
            kind: "tool_call_update")
        chunk("user_message_chunk", hostile(imageURL: imageURL))
        for index in 0..<extraMessages {
            chunk(index % 2 == 0 ? "user_message_chunk" : "agent_message_chunk", "Message \(index): " + String(repeating: "lorem ipsum ", count: 40))
        }
        chunk("agent_message_chunk", cutText)
        try store.appendEvents(events)
        return path
    }
}
