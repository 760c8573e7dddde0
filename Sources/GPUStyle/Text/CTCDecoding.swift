/// Turns a CTC recogniser's per-step class probabilities into text.
///
/// The probabilities are laid out class-major, as the runtime returns PP-OCRv6's output:
/// `[classes][steps]`, the value of class k at step t at `k * steps + t`. The recogniser sees a
/// crop padded on the right to a multiple of 8 columns (PaddleOCR pads to at least 320); the
/// steps over the padding are not decoded.
public enum CTCDecoding {
    /// Crop columns per output step (the recogniser downsamples the width by 8).
    public static let stepWidth = 8

    /// The steps that cover a crop `cropWidth` columns wide, padding excluded: ⌈cropWidth / 8⌉.
    public static func validSteps(cropWidth: Int) -> Int {
        precondition(cropWidth >= 0, "negative crop width")
        return (cropWidth + stepWidth - 1) / stepWidth
    }

    /// Greedy (best-path) decoding as PaddleOCR's CTCLabelDecode does it: the most probable
    /// class at each of the first `validSteps` steps (the first of equal ones), a run of equal
    /// classes kept once, at its first step, then blanks dropped (so a blank between two equal
    /// classes keeps both: the "ll" of "hello"). The confidence is the mean of the kept steps'
    /// probabilities, as PaddleOCR reports it. NaN probabilities never win a step.
    public static func greedy(probabilities: UnsafeBufferPointer<Float>, classes: Int, steps: Int, validSteps: Int,
                              alphabet: TextAlphabet) -> DecodedLine {
        precondition(classes == alphabet.classCount, "the alphabet has \(alphabet.classCount) classes, the output \(classes)")
        precondition(steps >= 0 && probabilities.count == classes * steps, "the output must hold classes x steps values")
        precondition((0...steps).contains(validSteps), "valid steps must lie in 0...steps")
        guard validSteps > 0 else { return .empty }

        // Class-major rows are contiguous, so walk class by class and keep the best so far per step.
        var best = [Int](repeating: 0, count: validSteps)
        var bestProbability = [Float](repeating: -.infinity, count: validSteps)
        for k in 0..<classes {
            let row = k * steps
            for t in 0..<validSteps where probabilities[row + t] > bestProbability[t] {
                bestProbability[t] = probabilities[row + t]
                best[t] = k
            }
        }

        var string = ""
        var characters: [DecodedCharacter] = []
        var sum = 0.0, kept = 0
        var afterSpace = true  // the first character starts a word
        for t in 0..<validSteps {
            let k = best[t]
            if t > 0, k == best[t - 1] {
                // The run's first step appended its character (blanks and spaces are not in the list).
                if k != TextAlphabet.blank, k != alphabet.space { characters[characters.count - 1].lastStep = t }
                continue
            }
            guard let character = alphabet.character(of: k) else { continue }
            string.append(character)
            sum += Double(bestProbability[t])
            kept += 1
            if k == alphabet.space {
                afterSpace = true
                continue
            }
            characters.append(DecodedCharacter(character: character, classIndex: k, firstStep: t, lastStep: t,
                                               probability: bestProbability[t], startsWord: afterSpace))
            afterSpace = false
        }
        return DecodedLine(string: string, confidence: kept > 0 ? Float(sum / Double(kept)) : 0, characters: characters)
    }

    /// `greedy` on an array.
    public static func greedy(probabilities: [Float], classes: Int, steps: Int, validSteps: Int,
                              alphabet: TextAlphabet) -> DecodedLine {
        probabilities.withUnsafeBufferPointer {
            greedy(probabilities: $0, classes: classes, steps: steps, validSteps: validSteps, alphabet: alphabet)
        }
    }
}
