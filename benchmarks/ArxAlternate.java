import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.aggregates.StatisticsEquivalenceClasses;

/**
 * ARX 3.9.2 as a peer that runs one anonymization per request, so that a Python benchmark can
 * alternate ARX and anonlab in one run (benchmarks/bench_lattice_arx.py).
 *
 * Usage: java -cp build:arx/lib/* ArxAlternate DATA_DIR REPLICATION
 * Compile together with ../shared/arx/ArxBench.java: the data definition and the configuration
 * are ArxBench's own (ArxBench.makeData, ArxBench.makeConfig), so the settings are exactly the
 * ones its README describes. The CSV is read and replicated once, before any timing, as
 * ArxBench does. Then, per line read from stdin, "MODEL SUPPRESSION" (MODEL one of ArxBench's
 * three names, SUPPRESSION a share such as 0.02), it builds a fresh Data, times
 * ARXAnonymizer.anonymize() (which includes ARX's dictionary encoding) and writes one line:
 * "ms=... levels=a,b,... classes=... suppressed=... loss=... checked=..." (levels in ArxBench's
 * QIS order; loss as Double.toString, every digit). An empty line or end of input ends it.
 */
public class ArxAlternate {
    public static void main(String[] args) throws Exception {
        String dir = args[0];
        int rep = Integer.parseInt(args[1]);
        List<String> lines = Files.readAllLines(Paths.get(dir, "adult.csv"), StandardCharsets.UTF_8);
        String[] header = lines.get(0).split(";", -1);
        List<String[]> rows = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) if (!lines.get(i).isEmpty()) rows.add(lines.get(i).split(";", -1));
        List<String[]> table = new ArrayList<>(1 + rows.size() * rep);
        table.add(header);
        for (int r = 0; r < rep; r++) table.addAll(rows);
        Map<String, String[][]> hier = new HashMap<>();
        for (String qi : ArxBench.QIS)
            hier.put(qi, Hierarchy.create(new File(dir, "adult_hierarchy_" + qi + ".csv"), StandardCharsets.UTF_8, ';').getHierarchy());
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        out.printf("ready java=%s rows=%d%n", System.getProperty("java.version"), table.size() - 1);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.isBlank()) {
            String[] request = line.trim().split("\\s+");
            String model = request[0];
            double supp = Double.parseDouble(request[1]);
            Data data = ArxBench.makeData(table, hier, !model.startsWith("5-anon"));
            ARXConfiguration cfg = ArxBench.makeConfig(model, supp);
            ARXAnonymizer anonymizer = new ARXAnonymizer();
            long t0 = System.nanoTime();
            ARXResult res = anonymizer.anonymize(data, cfg);
            long t1 = System.nanoTime();
            ARXLattice.ARXNode opt = res.getGlobalOptimum();
            if (opt == null) {
                out.printf("ms=%.3f none%n", (t1 - t0) / 1e6);
                continue;
            }
            String[] qis = opt.getQuasiIdentifyingAttributes();
            int[] tr = opt.getTransformation();
            StringBuilder levels = new StringBuilder();
            for (int i = 0; i < ArxBench.QIS.length; i++) {
                int at = Arrays.asList(qis).indexOf(ArxBench.QIS[i]);
                levels.append(tr[at]).append(i + 1 < ArxBench.QIS.length ? "," : "");
            }
            StatisticsEquivalenceClasses ec = res.getOutput(opt, false).getStatistics().getEquivalenceClassStatistics();
            out.printf("ms=%.3f levels=%s classes=%d suppressed=%d loss=%s checked=%d%n",
                    (t1 - t0) / 1e6, levels, ec.getNumberOfEquivalenceClasses(),
                    ec.getNumberOfSuppressedRecords(), opt.getHighestScore().toString(),
                    res.getProcessStatistics().getTransformationsChecked());
        }
    }
}
